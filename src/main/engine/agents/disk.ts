// How the agent writers touch the disk: through a symlink to the file it names (a dotfiles
// repository keeps its link), and by writing a temp file and renaming it over, so a crash
// leaves the old file or the new one, never half of either.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** The file a path stands for: itself, or what its chain of symlinks ends at (even if absent). */
export function realTarget(path: string): string {
  let at = path;
  for (let hops = 0; hops < 40; hops++) {
    let isLink = false;
    try {
      isLink = lstatSync(at).isSymbolicLink();
    } catch {
      return at;
    }
    if (!isLink) return at;
    if (existsSync(at)) return realpathSync(at);
    at = resolve(dirname(at), readlinkSync(at));
  }
  return at;
}

/** Writes `data` to `path` (not a link) with `mode`: all of it, or nothing changes. */
export function writeAtomic(path: string, data: string | Buffer, mode: number): void {
  const tmp = join(
    dirname(path),
    `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  const fd = openSync(tmp, 'wx', mode);
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
