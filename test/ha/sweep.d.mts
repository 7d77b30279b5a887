// Types of sweep.mjs: what is left of a high-availability cluster, killed and removed.

/** SIGKILLs every program the pid files below `dir` name, with its process group, then removes `dir`. */
export function sweepHaDirectory(dir: string): void;
