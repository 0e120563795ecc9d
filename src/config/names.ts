// Names that travel into directory names, command lines and terminals, checked where they
// are written: the host file's `name:` and every `--name` use the same rule.

export const CLUSTER_NAME = {
  re: /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
  expected: 'expected a name of letters, digits, ".", "_" or "-"',
};

/**
 * `dask worker --resources "GPU=2 MEM=1e9"` splits on spaces, commas and "=", so a name
 * holding one of them becomes another resource (or a crash loop in Dask's parser).
 */
export const RESOURCE_NAME = {
  re: /^[A-Za-z_][A-Za-z0-9_.-]*$/,
  expected:
    'expected a resource name of letters, digits, "_", "." or "-", starting with a letter or "_" (like GPU or MEMORY)',
};
