// A Map that says when it changes: the reconciler plans again only when something it
// plans from changed (ClusterState.version), so each write bumps a counter.
export class VersionedMap<K, V> extends Map<K, V> {
  constructor(private readonly bump: () => void) {
    super();
  }
  override set(k: K, v: V): this {
    super.set(k, v);
    this.bump();
    return this;
  }
  override delete(k: K): boolean {
    const had = super.delete(k);
    if (had) this.bump();
    return had;
  }
  override clear(): void {
    if (this.size) this.bump();
    super.clear();
  }
}
