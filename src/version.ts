// The CLI's version, and the control protocol's major: a client (this CLI's commands, the
// Python package) that speaks another major refuses the controller instead of guessing.
// A unit test keeps VERSION equal to package.json's; the Python package reads it there.
export const VERSION = '0.1.0';

/** Bumped when a method changes incompatibly; adding a method or a field keeps it. */
export const CONTROL_PROTOCOL = 1;
