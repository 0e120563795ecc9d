"""sshcluster's scheduler preload: pending work by Worker Resources, over HTTP.

Dask's /api/v1/adaptive_target ignores resources: tasks that need GPU=1 and have no
worker that declares GPU sit in `unrunnable` and add nothing to the target. This
preload adds GET /api/v1/sshcluster/demand to the scheduler's own HTTP server so the
controller can see that work. Loaded with `dask scheduler --preload PATH` (or the
text of this file). Written for distributed 2022.12 (Debian bookworm) and 2024.12
(Debian trixie), Python 3.8 and later; only attributes both versions have are read.

Answer (JSON):
  version       1, bumped when a field changes meaning
  distributed   distributed.__version__
  groups        one entry per distinct resource restriction set with pending work:
    resources     the set, e.g. {"GPU": 1}
    unrunnable    tasks no current worker can run (no worker declares enough)
    waiting       tasks assigned to a worker but waiting there for its resources
    running       tasks assigned that the worker's resources let run now
    duration      expected seconds of the unrunnable + waiting tasks, from the
                  scheduler's own per-prefix estimates
    unknown       how many of those had no estimate (counted at unknown-task-duration)
  plain_pending tasks without restrictions that wait for any worker: unrunnable (the
                scheduler has none) or queued. Dask's target of 1 at 0 workers may be
                for them or for restricted work no host can run; this says which.
  workers       every worker: name, address, nthreads, declared resources, used,
                and its figures: processing (tasks assigned to it), in_memory (results
                it holds), cpu (percent of a core), memory (process bytes),
                memory_limit (bytes, 0: none), idle_s (seconds with nothing to
                process, as seen by these requests; absent while busy)
  figures       the whole cluster, for `status` and the dashboard (absent if reading
                them failed; the rest still answers):
    tasks         tasks the scheduler holds by state (no zero counts, no forgotten)
    progress      the newest computation (a client's burst of work): done and
                  erred of total tasks (a task that erred stays erred after its client
                  left; one forgotten before it ran is neither), killed_workers (workers that died running its tasks), and the
                  same by task prefix (prefixes, most erred first, at most 50); null
                  before any
    clients       clients connected (the scheduler's own fire-and-forget not counted)
    scheduler     the scheduler process: cpu (percent of a core), memory (bytes)

Restricted tasks are never queued (is_rootish() is False for them in both versions),
so every queued task is plain and `scheduler.queued` is only counted.

It also adds POST /api/v1/sshcluster/retire, {"workers": [address, ...]}: Dask's
retire_workers (data moved off) with remove=False, answered {"retired": {address:
{"name": name}}, "kept": {address: {"results": n}}}. Kept are the workers Dask did not retire
(both versions leave them out of their answer, 2022.12 without a word): n results only
they (or workers retired with them) hold had no other running worker to go to. Those
keep running, back in the state they had. The retired stay known to the scheduler, closing gracefully,
until their processes end, which the controller then stops. Dask's route removes them
at once, and a removed worker's next heartbeat is told the scheduler does not know it:
it closes itself (with a nanny: restarts) while the controller's SIGTERM arrives, and
`dask worker --no-nanny` 2022.12 can hang in that double close until it is killed.
Added only where Dask's own API routes are enabled: it retires nothing theirs cannot.
"""

import json
import logging
import math
import os
import time

ROUTE = "/api/v1/sshcluster/demand"
RETIRE_ROUTE = "/api/v1/sshcluster/retire"
VERSION = 1

logger = logging.getLogger("distributed.sshcluster.demand")


def _key(restrictions):
    return tuple(sorted((str(k), float(v)) for k, v in restrictions.items()))


def _duration(scheduler, ts):
    # prefix.duration_average is -1 until a task of that prefix has finished, unless
    # distributed.scheduler.default-task-durations names it. get_task_duration() is not
    # called: it records the task in unknown_durations, scheduler state we must not touch.
    d = ts.prefix.duration_average
    if d is None or d < 0:
        return scheduler.UNKNOWN_TASK_DURATION, True
    return d, False


def _group(groups, key):
    g = groups.get(key)
    if g is None:
        g = {"resources": dict(key), "unrunnable": 0, "waiting": 0, "running": 0, "duration": 0.0, "unknown": 0}
        groups[key] = g
    return g


def _add_pending(scheduler, g, tasks):
    for ts in tasks:
        d, unknown = _duration(scheduler, ts)
        g["duration"] += d
        g["unknown"] += int(unknown)


def _slots(ws, key):
    """Tasks of this restriction set the worker can run at once."""
    slots = ws.nthreads
    for name, need in key:
        if need > 0:
            slots = min(slots, math.floor(ws.resources.get(name, 0) / need))
    return max(0, slots)


def _worker_tasks(scheduler, groups, ws):
    by_key = {}
    for ts in ws.processing:
        if ts.resource_restrictions:
            by_key.setdefault(_key(ts.resource_restrictions), []).append(ts)
    for key, tasks in by_key.items():
        g = _group(groups, key)
        running = min(len(tasks), _slots(ws, key))
        g["running"] += running
        g["waiting"] += len(tasks) - running
        # Which of them runs is the worker's choice; the newest wait, as a worker
        # takes tasks roughly in the order they were assigned.
        _add_pending(scheduler, g, tasks[running:])


def demand(scheduler):
    import distributed

    groups = {}
    plain = len(scheduler.queued)
    for ts in scheduler.unrunnable:  # a set in 2022.12, a dict in 2024.12
        if ts.resource_restrictions:
            g = _group(groups, _key(ts.resource_restrictions))
            g["unrunnable"] += 1
            _add_pending(scheduler, g, [ts])
        else:
            plain += 1
    workers = []
    for ws in scheduler.workers.values():
        # Only a worker that declares resources can hold a restricted task.
        if ws.resources:
            _worker_tasks(scheduler, groups, ws)
        w = {
            "name": str(ws.name),
            "address": ws.address,
            "nthreads": ws.nthreads,
            "resources": dict(ws.resources),
            "used": dict(ws.used_resources),
        }
        w.update(_worker_figures(ws))
        workers.append(w)
    _forget_idle(scheduler)
    body = {
        "version": VERSION,
        # Which scheduler answers: the controller looks for the pid it started among
        # these, so another cluster's scheduler on the same port is not taken for its own.
        "pids": _lineage(),
        "distributed": distributed.__version__,
        "groups": list(groups.values()),
        "plain_pending": plain,
        "workers": workers,
    }
    try:
        body["figures"] = figures(scheduler)
    except Exception:  # figures are for people; demand must still answer
        logger.exception("sshcluster figures failed")
    return body


# address -> time.monotonic() when a request first saw the worker with nothing to process
_idle_since = {}


def _worker_figures(ws):
    try:
        processing = len(ws.processing)
        metrics = ws.metrics or {}
        out = {
            "processing": processing,
            "in_memory": len(ws.has_what),
            "cpu": float(metrics.get("cpu") or 0),
            "memory": int(metrics.get("memory") or 0),
            "memory_limit": int(ws.memory_limit or 0),
        }
    except Exception:
        return {}
    now = time.monotonic()
    if processing:
        _idle_since.pop(ws.address, None)
    else:
        out["idle_s"] = round(now - _idle_since.setdefault(ws.address, now), 1)
    return out


def _forget_idle(scheduler):
    for address in [a for a in _idle_since if a not in scheduler.workers]:
        del _idle_since[address]


def _count_states(groups):
    counts = {}
    for tg in groups:
        for state, n in tg.states.items():
            if n > 0 and state != "forgotten":
                counts[state] = counts.get(state, 0) + n
    return counts


PENDING = ("processing", "queued", "no-worker", "waiting")
MAX_PREFIXES = 50


def _progress(groups):
    """done / erred / total of these task groups, by task prefix too.

    A task that erred and was then forgotten (its client left) counts as forgotten in the
    group's states; the outcomes plugin remembers it erred, so it is never counted done.
    Nor is one forgotten before it ran (its client left first): done is what the plugin
    saw reach memory, where it has the group (else every task no longer pending)."""
    total = erred = done = killed = 0
    prefixes = {}
    for tg in groups:
        states = tg.states
        t = sum(states.values())
        p = sum(states.get(s, 0) for s in PENDING)
        o = _outcome_of(tg)
        e = min(t - p, max(states.get("erred", 0), o.get("erred", 0)))
        d = min(t - p - e, o["done"]) if o else t - p - e
        k = o.get("killed", 0)
        total, done, erred, killed = total + t, done + d, erred + e, killed + k
        name = str(tg.prefix.name)
        x = prefixes.setdefault(name, {"prefix": name, "done": 0, "erred": 0, "total": 0, "killed_workers": 0})
        x["done"] += d
        x["erred"] += e
        x["total"] += t
        x["killed_workers"] += k
    ranked = sorted(prefixes.values(), key=lambda x: (-x["erred"], -x["total"]))[:MAX_PREFIXES]
    return {"done": done, "total": total, "erred": erred, "killed_workers": killed, "prefixes": ranked}


def figures(scheduler):
    tasks = _count_states(list(scheduler.task_groups.values()))
    progress = None
    if scheduler.computations:
        progress = _progress(list(scheduler.computations[-1].groups))
    recent = scheduler.monitor.recent()
    return {
        "tasks": tasks,
        "progress": progress,
        "clients": sum(1 for c in scheduler.clients if c != "fire-and-forget"),
        "scheduler": {"cpu": float(recent.get("cpu") or 0), "memory": int(recent.get("memory") or 0)},
    }


# task group name -> {"group": that TaskGroup, "done": times its tasks reached memory,
# "erred": tasks that erred, "killed": workers that died running those}, from a group's
# first task on. A group whose tasks are all forgotten is dropped by
# the scheduler and a later task of the same name starts a new one: its outcomes start
# at zero (a re-run after a failure is not shown with the old run's errors).
_outcomes = {}
MAX_OUTCOMES = 1000
# The transitions recorded: "waiting" is every computed task's first, so a group has its
# record before any task of it can finish or be forgotten unrun.
_RECORDED = ("waiting", "memory", "erred")


def _outcome_of(tg):
    o = _outcomes.get(tg.name)
    return o if o is not None and o["group"] is tg else {}


def _outcomes_plugin(scheduler):
    from distributed.diagnostics.plugin import SchedulerPlugin

    class Outcomes(SchedulerPlugin):
        name = "sshcluster-outcomes"

        def transition(self, key, start, finish, *args, **kwargs):
            if finish not in _RECORDED:
                return
            try:
                ts = scheduler.tasks.get(key)
                if ts is None or ts.group is None:
                    return
                o = _outcomes.get(ts.group.name)
                if o is None or o["group"] is not ts.group:
                    _outcomes.pop(ts.group.name, None)
                    if len(_outcomes) >= MAX_OUTCOMES:
                        del _outcomes[next(iter(_outcomes))]
                    o = _outcomes[ts.group.name] = {"group": ts.group, "done": 0, "erred": 0, "killed": 0}
                if finish == "memory":
                    o["done"] += 1
                if finish != "erred":
                    return
                o["erred"] += 1
                # suspicious: workers that died while it ran (KilledWorker once past
                # distributed.scheduler.allowed-failures). Counted only for a task that
                # erred: one that finished later was a bystander on that worker.
                o["killed"] += int(getattr(ts, "suspicious", 0) or 0)
            except Exception:  # never an error in the scheduler's transitions
                pass

    return Outcomes()


def _handler_class():
    from distributed.http.utils import RequestHandler

    class DemandHandler(RequestHandler):
        def get(self):
            self.set_header("Content-Type", "application/json")
            try:
                body = demand(self.server)
            except Exception as e:  # a bug here must not take the scheduler down
                logger.exception("sshcluster demand failed")
                self.set_status(500)
                self.write(json.dumps({"error": type(e).__name__}))
                return
            self.write(json.dumps(body))

    return DemandHandler


def _kept(scheduler, asked, retired):
    # The asked workers the scheduler still has and did not retire, with how many of
    # their results no worker outside those asked holds (lost if they stopped).
    asked_set = set(asked)
    kept = {}
    for address in asked:
        ws = scheduler.workers.get(address)
        if ws is None or address in retired:
            continue
        only = 0
        for ts in ws.has_what:
            if all(w.address in asked_set for w in (ts.who_has or ())):
                only += 1
        kept[address] = {"results": only}
    return kept


def retire_answer(retired, kept):
    """The retire route's body. Of a retired worker the controller reads its address;
    the name stays for a person reading it. Not Dask's identity: on 2024.12 that of a
    worker that ran tasks since its last heartbeat holds metrics keyed by tuples, which
    JSON cannot take (the route answered 500 after retiring, seen under load)."""
    names = {a: {"name": str(i.get("name", "")) if isinstance(i, dict) else ""} for a, i in retired.items()}
    return json.dumps({"retired": names, "kept": kept})


def _retire_class():
    from distributed.http.utils import RequestHandler

    class RetireHandler(RequestHandler):
        async def post(self):
            self.set_header("Content-Type", "application/json")
            try:
                body = json.loads(self.request.body)
            except ValueError:  # not JSON, or not UTF-8
                body = None
            workers = body.get("workers") if isinstance(body, dict) else None
            if not isinstance(workers, list) or not all(isinstance(w, str) for w in workers):
                self.set_status(400)
                self.write(json.dumps({"error": "expected {\"workers\": [address, ...]}"}))
                return
            try:
                info = await self.server.retire_workers(workers=workers, remove=False)
                kept = _kept(self.server, workers, info)
                self.write(retire_answer(info, kept))
            except Exception as e:
                logger.exception("sshcluster retire failed")
                self.set_status(500)
                self.write(json.dumps({"error": type(e).__name__}))

    return RetireHandler


def _api_enabled():
    import dask

    return "distributed.http.scheduler.api" in (dask.config.get("distributed.scheduler.http.routes", None) or [])


_pids = []


def _lineage():
    # This process and its ancestors, nearest first: a remote_python wrapper that does not
    # exec (a script, `conda run`) puts processes between the one the launcher started and
    # the scheduler. Parents beyond the first are read from /proc where there is one.
    # Read once: the controller asks only at start-up, the adaptive loop every second.
    if _pids:
        return _pids
    pids = _pids
    pids.append(os.getpid())
    pid = os.getppid()
    while pid > 1 and len(pids) < 8:
        pids.append(pid)
        try:
            with open("/proc/%d/stat" % pid) as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


TERMINATE_MESSAGE = "sshcluster: a client asked the scheduler to terminate"


def _announce_terminate(scheduler):
    """A client's shutdown() (scheduler.terminate) is said in the log before the
    scheduler closes: the controller then reads the exit as a requested down."""
    original = scheduler.handlers.get("terminate")
    if original is None:
        return

    async def terminate(*args, **kwargs):
        logger.info(TERMINATE_MESSAGE)
        result = original(*args, **kwargs)
        return await result if hasattr(result, "__await__") else result

    scheduler.handlers["terminate"] = terminate


def dask_setup(scheduler):
    _announce_terminate(scheduler)
    app = getattr(scheduler, "http_application", None)
    if app is None:
        logger.warning("sshcluster demand: the scheduler has no HTTP server; %s not added", ROUTE)
        return
    # A host pattern of its own: tornado tries each host rule in turn, so the
    # scheduler's routes and Bokeh's applications keep answering everything else.
    handlers = [(ROUTE, _handler_class(), {"dask_server": scheduler})]
    if _api_enabled():
        handlers.append((RETIRE_ROUTE, _retire_class(), {"dask_server": scheduler}))
    app.add_handlers(r".*$", handlers)
    try:
        scheduler.add_plugin(_outcomes_plugin(scheduler))
    except Exception:  # figures are for people: without it erred work is counted by state
        logger.info("sshcluster outcomes not recorded", exc_info=True)
    logger.info("sshcluster demand route at %s", ROUTE)
