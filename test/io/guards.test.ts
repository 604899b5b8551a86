// The shared safety guards: outputs never onto inputs, the lock beside an output, regular-file inputs, and what
// an atomic write keeps (mode, symlinks) and cleans (temporaries of dead processes).
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { chmod, link, mkdir, mkdtemp, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { IoError, UsageError } from '../../src/errors.js';
import { writeFileAtomic } from '../../src/io/atomic.js';
import { acquireLock } from '../../src/io/lock.js';
import { assertOutputsNotInputs } from '../../src/io/output-is-input.js';
import { assertRegularFile, openRegularFile, readRegularFile } from '../../src/io/regular-file.js';
import { projectRoot } from '../helpers/shared.js';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evalkit-guards-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** The pid of a process that has ended (so it is certainly not alive). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

const throwsCode = (fn: () => unknown, code: string, cls: Function, text?: RegExp) =>
  assert.throws(fn, (e: Error & { code?: string }) => {
    assert.ok(e instanceof cls, `expected ${cls.name}, got ${e.constructor.name}: ${e.message}`);
    assert.equal(e.code, code);
    if (text) assert.match(e.message, text);
    return true;
  });

const rejectsCode = (p: Promise<unknown>, code: string, cls: Function, text?: RegExp) =>
  assert.rejects(p, (e: Error & { code?: string }) => {
    assert.ok(e instanceof cls, `expected ${cls.name}, got ${e.constructor.name}: ${e.message}`);
    assert.equal(e.code, code);
    if (text) assert.match(e.message, text);
    return true;
  });

describe('assertOutputsNotInputs', () => {
  it('refuses an output that is an input, however it is spelled, naming both as typed', async () => {
    const d = join(dir, 'oi');
    await mkdir(join(d, 'sub'), { recursive: true });
    await writeFile(join(d, 'B.json'), '{}');
    throwsCode(
      () => assertOutputsNotInputs(['B.json'], ['./sub/../B.json'], d),
      'io.output-is-input',
      UsageError,
      /the output \.\/sub\/\.\.\/B\.json is the input B\.json/,
    );
    await symlink(join(d, 'B.json'), join(d, 'link.json'));
    throwsCode(() => assertOutputsNotInputs(['B.json'], ['link.json'], d), 'io.output-is-input', UsageError);
    await link(join(d, 'B.json'), join(d, 'hard.json'));
    throwsCode(() => assertOutputsNotInputs(['hard.json'], ['B.json'], d), 'io.output-is-input', UsageError);
  });

  it('sees through a symlinked folder to an output that does not exist yet', async () => {
    const d = join(dir, 'oi2');
    await mkdir(join(d, 'real'), { recursive: true });
    await symlink(join(d, 'real'), join(d, 'alias'));
    // the input does not exist either (a path a command will read later): still the same file
    throwsCode(
      () => assertOutputsNotInputs(['real/x.jsonl'], ['alias/x.jsonl'], d),
      'io.output-is-input',
      UsageError,
    );
  });

  it('refuses two outputs that are the same file and accepts distinct paths and "-"', async () => {
    const d = join(dir, 'oi3');
    await mkdir(d, { recursive: true });
    throwsCode(
      () => assertOutputsNotInputs(['in.json'], ['out.json', './out.json'], d),
      'io.outputs-collide',
      UsageError,
    );
    assert.doesNotThrow(() =>
      assertOutputsNotInputs(['in.json', '-'], ['out.json', '-', undefined, 'log'], d),
    );
  });
});

describe('acquireLock', () => {
  it('refuses a second holder while the first lives, naming its pid, host and start, then frees on release', async () => {
    const target = join(dir, 'lock1.json');
    const first = await acquireLock(target, 'evaluate', ['evaluate', 'b.json']);
    const onDisk = JSON.parse(readFileSync(`${target}.lock`, 'utf8'));
    assert.equal(onDisk.pid, process.pid);
    assert.equal(onDisk.host, hostname());
    assert.equal(onDisk.purpose, 'evaluate');
    assert.deepEqual(onDisk.argv, ['evaluate', 'b.json']);
    await rejectsCode(
      acquireLock(target, 'evaluate'),
      'io.locked',
      IoError,
      new RegExp(`process ${process.pid} on ${hostname()}, started ${onDisk.started_at}`),
    );
    first.release();
    first.release(); // idempotent
    assert.equal(existsSync(`${target}.lock`), false);
    const second = await acquireLock(target, 'evaluate');
    second.release();
  });

  it('takes over a lock whose owner on this host is dead, and refuses one from another host', async () => {
    const target = join(dir, 'lock2.json');
    const pid = deadPid();
    const stale = { pid, host: hostname(), started_at: '2020-01-01T00:00:00.000Z', purpose: 'evaluate' };
    await writeFile(`${target}.lock`, JSON.stringify(stale));
    const lock = await acquireLock(target, 'evaluate');
    assert.equal(lock.recoveredStale?.pid, pid);
    assert.equal(JSON.parse(readFileSync(`${target}.lock`, 'utf8')).pid, process.pid);
    lock.release();
    await writeFile(`${target}.lock`, JSON.stringify({ ...stale, host: 'another-machine' }));
    await rejectsCode(acquireLock(target, 'evaluate'), 'io.locked', IoError, /another-machine/);
    await rm(`${target}.lock`);
  });

  it('takes over an unreadable lock only when it is old', async () => {
    const target = join(dir, 'lock3.json');
    await writeFile(`${target}.lock`, '{"pid": 12');
    await rejectsCode(acquireLock(target, 'evaluate'), 'io.locked', IoError, /unknown process/);
    const old = new Date(Date.now() - 60_000);
    await utimes(`${target}.lock`, old, old);
    const lock = await acquireLock(target, 'evaluate');
    lock.release();
  });

  it('is released when the owning process exits or is ended by SIGTERM', async () => {
    const lockModule = join(projectRoot, 'src/io/lock.ts');
    const script = (target: string, then: string) =>
      `import(${JSON.stringify(lockModule)}).then(async (m) => { await m.acquireLock(${JSON.stringify(target)}, 'test'); process.stdout.write('locked\\n'); ${then} });`;
    const exiting = join(dir, 'lock4.json');
    execFileSync(process.execPath, ['--import', 'tsx', '-e', script(exiting, '')], { cwd: projectRoot });
    assert.equal(existsSync(`${exiting}.lock`), false);

    const killed = join(dir, 'lock5.json');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '-e', script(killed, 'setInterval(() => {}, 1000);')],
      {
        cwd: projectRoot,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    await new Promise<void>((res) => child.stdout.once('data', () => res()));
    assert.equal(existsSync(`${killed}.lock`), true);
    child.kill('SIGTERM');
    const signal = await new Promise((res) => child.on('close', (_code, sig) => res(sig)));
    assert.equal(signal, 'SIGTERM');
    assert.equal(existsSync(`${killed}.lock`), false);
  });
});

describe('regular-file inputs', () => {
  it('refuses a FIFO without blocking, and says it is a named pipe', async () => {
    const fifo = join(dir, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    await rejectsCode(
      assertRegularFile(fifo, 'pipe.json'),
      'io.not-regular',
      IoError,
      /pipe\.json: it is a named pipe \(FIFO\)/,
    );
    await rejectsCode(openRegularFile(fifo), 'io.not-regular', IoError, /named pipe/);
    await rejectsCode(readRegularFile(fifo), 'io.not-regular', IoError, /named pipe/);
  });

  it('refuses a character device and a directory, says "no such file" only when there is none', async () => {
    await rejectsCode(readRegularFile('/dev/zero'), 'io.not-regular', IoError, /is a character device/);
    await rejectsCode(readRegularFile(dir), 'io.not-regular', IoError, /is a directory/);
    await rejectsCode(
      readRegularFile(join(dir, 'nope.json'), 'nope.json'),
      'io.not-found',
      IoError,
      /no such file: nope\.json/,
    );
  });

  it('reads a regular file, through a symlink, and enforces a size cap', async () => {
    const file = join(dir, 'data.json');
    await writeFile(file, '{"a": 1}');
    await symlink(file, join(dir, 'data-link.json'));
    assert.equal((await readRegularFile(join(dir, 'data-link.json'))).toString(), '{"a": 1}');
    await rejectsCode(
      readRegularFile(file, 'data.json', { maxBytes: 4 }),
      'io.too-large',
      IoError,
      /8 bytes/,
    );
  });

  it(
    'turns EACCES into a clear permission error',
    { skip: process.getuid?.() === 0 && 'root reads any file' },
    async () => {
      const file = join(dir, 'secret.json');
      await writeFile(file, '{}');
      await chmod(file, 0o000);
      await rejectsCode(
        readRegularFile(file, 'secret.json'),
        'io.permission',
        IoError,
        /secret\.json: permission denied/,
      );
    },
  );
});

describe('writeFileAtomic', () => {
  it('keeps the mode of the file it replaces', async () => {
    const file = join(dir, 'private.json');
    await writeFile(file, 'old', { mode: 0o600 });
    await chmod(file, 0o600);
    await writeFileAtomic(file, 'new');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(readFileSync(file, 'utf8'), 'new');
  });

  it('writes through a symlink: the link stays a link and its target gets the bytes', async () => {
    const real = join(dir, 'target.json');
    const linkPath = join(dir, 'via-link.json');
    await writeFile(real, 'old', { mode: 0o640 });
    await chmod(real, 0o640);
    await symlink('target.json', linkPath);
    await writeFileAtomic(linkPath, 'new');
    assert.ok(lstatSync(linkPath).isSymbolicLink());
    assert.equal(readFileSync(real, 'utf8'), 'new');
    assert.equal(statSync(real).mode & 0o777, 0o640);
  });

  it('removes temporaries left by dead processes, and keeps those of live ones', async () => {
    const d = join(dir, 'stale');
    await mkdir(d);
    const dead = `.out.json.${deadPid()}.0123456789ab.tmp`;
    const live = `.out.json.${process.ppid}.0123456789ab.tmp`;
    await writeFile(join(d, dead), 'half');
    await writeFile(join(d, live), 'half');
    await writeFileAtomic(join(d, 'out.json'), '{}');
    const names = await readdir(d);
    assert.ok(!names.includes(dead), `${dead} should be gone: ${names}`);
    assert.ok(names.includes(live));
    assert.ok(names.includes('out.json'));
  });

  it('says plainly when the parent path is a file, or the output is a directory', async () => {
    await writeFile(join(dir, 'afile'), 'x');
    await rejectsCode(
      writeFileAtomic(join(dir, 'afile', 'eta.json'), '{}'),
      'io.parent-not-directory',
      IoError,
      /afile is a file, not a folder/,
    );
    await rejectsCode(
      writeFileAtomic(join(dir, 'afile', 'deeper', 'eta.json'), '{}'),
      'io.parent-not-directory',
      IoError,
    );
    await mkdir(join(dir, 'adir'));
    await rejectsCode(writeFileAtomic(join(dir, 'adir'), '{}'), 'io.is-directory', IoError, /is a directory/);
  });
});
