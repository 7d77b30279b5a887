import * as fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { FileStoreError } from '../file-store-error.js';

/** A held lock: what `releaseLock` needs. */
export interface HeldLock {
  /** The lock file. */
  readonly path: string;
}

// One store per file per process: the lock file names a pid, so a second store in the same
// process would find its own pid and could not tell it from a crashed predecessor. Keyed by lock file.
const heldInThisProcess = new Set<string>();

function isAlive(pid: number): boolean {
  // Our own pid in a lock we do not hold (the caller checked that) is a previous run that had the
  // same pid, as a container's PID 1 always does.
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; it is alive all the same.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(path: string): number | 'missing' | 'unreadable' {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : 'unreadable';
}

/** Tries once to create the lock exclusively. */
function tryCreate(lockPath: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(lockPath, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeSync(fd, `${process.pid}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/**
 * Moves a stale lock out of the way. Renaming (atomic) and then re-reading what was moved means two
 * processes taking over the same stale lock cannot both remove the winner's fresh lock: the loser
 * finds a live pid in what it moved, puts it back, and then reports it.
 */
function removeStale(lockPath: string, stale: string): void {
  const aside = `${lockPath}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = fs.readFileSync(aside, 'utf8').trim();
  if (moved !== stale) {
    try {
      fs.linkSync(aside, lockPath);
    } catch {
      // Someone locked it meanwhile; the next attempt reads their lock.
    }
  }
  fs.unlinkSync(aside);
}

/**
 * Locks `dataPath` (an absolute path) for this process with `<dataPath>.lock`, created with O_EXCL and
 * holding our pid. A lock whose pid is dead is stale (SIGKILL and power loss leave one behind) and is
 * taken over; a live one, or a store of this process already on the file, is refused.
 */
export async function acquireLock(dataPath: string): Promise<HeldLock> {
  const lockPath = `${dataPath}.lock`;
  if (heldInThisProcess.has(lockPath)) {
    throw new FileStoreError(
      'locked',
      dataPath,
      `${dataPath} is already open in this process; close that store first.`,
    );
  }
  heldInThisProcess.add(lockPath);
  try {
    return await lockFile(dataPath, lockPath);
  } catch (error) {
    heldInThisProcess.delete(lockPath);
    throw error;
  }
}

/** Takes `lockPath` for this process's pid, or throws why not. */
async function lockFile(dataPath: string, lockPath: string): Promise<HeldLock> {
  // Bounded: an unreadable lock gets a moment to receive its pid (another process between O_EXCL
  // create and write); after that, it is a crash's leftover.
  for (let attempt = 0; attempt < 20; attempt++) {
    if (tryCreate(lockPath)) return { path: lockPath };
    const pid = readPid(lockPath);
    if (pid === 'missing') continue;
    if (pid === 'unreadable') {
      if (attempt < 5) {
        await sleep(20);
        continue;
      }
      let content: string;
      try {
        content = fs.readFileSync(lockPath, 'utf8').trim();
      } catch {
        continue;
      }
      removeStale(lockPath, content);
      continue;
    }
    if (isAlive(pid)) {
      throw new FileStoreError(
        'locked',
        dataPath,
        `${dataPath} is in use by process ${pid} (lock file ${lockPath}). Stop that process first; if it is not a plant store server, delete the lock file.`,
      );
    }
    removeStale(lockPath, String(pid));
  }
  throw new FileStoreError('locked', dataPath, `could not lock ${dataPath}: ${lockPath} keeps changing hands.`);
}

/**
 * Removes the lock, unless it is no longer ours (someone deleted it and another process took it), and
 * frees the file for another store of this process.
 */
export function releaseLock(lock: HeldLock): void {
  try {
    if (readPid(lock.path) === process.pid) {
      try {
        fs.unlinkSync(lock.path);
      } catch {
        // Already gone: nothing to release.
      }
    }
  } finally {
    heldInThisProcess.delete(lock.path);
  }
}
