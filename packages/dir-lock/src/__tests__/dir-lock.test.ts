/**
 * A directory's lock under contention: threads started at the same instant all find the same lock
 * left by a process that no longer runs, and exactly one of them takes it over; and how a lock's
 * process is told from a later one with its id, in this pid namespace and in another.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import fs, {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";

import { directoryLockHolder, DirectoryLockedError, lockDirectory } from "../dir-lock.js";
import { formatIdentity, ownIdentity } from "../process-identity.js";
import { pidNamespaceSkip, spawnScriptInNewPidNamespace } from "./support/pid-namespace.js";

const THREADS = 6;
const ROUNDS = 10;
/** A process id no process has (above Linux's pid_max). */
const GONE = 4_194_304 + 1;
/**
 * A lock of a process gone, as a process of this machine and pid namespace writes it (where
 * there is no /proc to say so, a lock naming an id alone: taken over after a watch of 5 s).
 */
const GONE_LOCK = formatIdentity({ ...ownIdentity(), pid: GONE });
/** The lock of a process that runs: this one (another part of it owns the directory). */
const RUNNING_LOCK = formatIdentity(ownIdentity());

// Each thread waits for the start signal, then takes the lock; a thread of this process that
// finds the lock held by this process's id is refused like any other process would be.
// (a thread does not inherit the test's TypeScript loader: it registers tsx first)
const contender = `
const { workerData, parentPort } = require("node:worker_threads");
import(workerData.loader)
  .then(({ register }) => { register(); return import(workerData.module); })
  .then(({ lockDirectory }) => {
    parentPort.postMessage("ready");
    Atomics.wait(new Int32Array(workerData.start), 0, 0);
    return lockDirectory(workerData.directory).then(
      () => parentPort.postMessage("owner"),
      (error) => parentPort.postMessage(error.name === "DirectoryLockedError" ? "locked" : String(error)),
    );
  });`;

/** The refusal naming `pid` as the directory's owner. */
function lockedBy(pid: number): (error: unknown) => boolean {
  return (error) => error instanceof DirectoryLockedError && error.pid === pid;
}

describe("a directory's lock", () => {
  const base = mkdtempSync(join(tmpdir(), "abas-dir-lock-"));
  after(() => rmSync(base, { recursive: true, force: true }));

  it("lets exactly one of many contenders take over a lock left by a process gone", async () => {
    const module = new URL("../dir-lock.ts", import.meta.url).href;
    const loader = import.meta.resolve("tsx/esm/api");
    for (let round = 0; round < ROUNDS; round++) {
      // Given a directory whose last owner died without releasing it
      const directory = join(base, `round-${round}`);
      rmSync(directory, { recursive: true, force: true });
      mkdirSync(directory, { recursive: true });
      writeFileSync(join(directory, "lock.7"), GONE_LOCK);
      // When they all try at once, once each is ready
      const start = new SharedArrayBuffer(4);
      const contenders = Array.from({ length: THREADS }, () => {
        const worker = new Worker(contender, {
          eval: true,
          workerData: { loader, module, directory: directory, start },
        });
        const ready = new Promise<void>((resolve, reject) => {
          worker.on("message", (message: string) => {
            if (message === "ready") resolve();
          });
          worker.once("error", reject);
        });
        const outcome = ready.then(
          () =>
            new Promise<string>((resolve) =>
              worker.on("message", (message: string) => {
                if (message !== "ready") void worker.terminate().then(() => resolve(message));
              }),
            ),
        );
        return { ready, outcome };
      });
      await Promise.all(contenders.map(({ ready }) => ready));
      Atomics.store(new Int32Array(start), 0, 1);
      Atomics.notify(new Int32Array(start), 0);
      const results = await Promise.all(contenders.map(({ outcome }) => outcome));
      // Then one owns it and every other is refused with DirectoryLockedError
      assert.deepEqual(
        [
          results.filter((outcome) => outcome === "owner").length,
          results.filter((outcome) => outcome === "locked").length,
        ],
        [1, THREADS - 1],
        `round ${round}: ${results.join(", ")}`,
      );
      // And the stale lock is gone, the new one names this process
      assert.deepEqual(readdirSync(directory).sort(), ["lock.8"]);
      assert.equal(directoryLockHolder(directory), process.pid);
    }
  });

  it("gives up a number it took over only because a later owner had removed it", async () => {
    // Given a lock left by a process gone, which this thread reads as stale; while it decides,
    // (injected on purpose, inside its read) another process takes lock.6 and ends, and a third,
    // still running, takes lock.7 and removes lock.6, so that the name lock.6 is free again
    const directory = mkdtempSync(join(base, "late-"));
    writeFileSync(join(directory, "lock.5"), GONE_LOCK);
    const realReadFileSync = fs.readFileSync;
    fs.readFileSync = ((path: fs.PathOrFileDescriptor, options?: unknown) => {
      const text = (realReadFileSync as (...args: unknown[]) => string | Buffer)(path, options);
      if (String(path).endsWith("lock.5")) {
        writeFileSync(join(directory, "lock.6"), GONE_LOCK);
        rmSync(join(directory, "lock.5"));
        writeFileSync(join(directory, "lock.7"), RUNNING_LOCK);
        rmSync(join(directory, "lock.6"));
      }
      return text;
    }) as typeof fs.readFileSync;
    syncBuiltinESMExports();
    try {
      // When this thread goes on to take lock.6, Then it sees lock.7 and is refused
      await assert.rejects(lockDirectory(directory), lockedBy(process.pid));
    } finally {
      fs.readFileSync = realReadFileSync;
      syncBuiltinESMExports();
    }
    assert.deepEqual(readdirSync(directory), ["lock.7"]);
  });

  it("reads only the lock names it writes, and takes over a lock file that links to nothing", async () => {
    const directory = mkdtempSync(join(base, "names-"));
    for (const name of ["lock.05", "lock.9007199254740993", "lock.x"])
      writeFileSync(join(directory, name), "1");
    symlinkSync(join(directory, "nowhere"), join(directory, "lock.3"));
    const lock = await lockDirectory(directory);
    assert.equal(directoryLockHolder(directory), process.pid);
    lock.release();
    assert.deepEqual(readdirSync(directory).sort(), ["lock.05", "lock.4", "lock.9007199254740993", "lock.x"]);
  });

  it("takes over a lock naming a process id alone once nothing renews it for 5 s, however that id runs here", async () => {
    // Given a lock naming a process by its id alone (written where there is no /proc, or by an
    // earlier version), whose id is a process that runs here (this one's parent)
    const directory = mkdtempSync(join(base, "id-alone-"));
    writeFileSync(join(directory, "lock.1"), String(process.ppid));
    // When this process asks for the directory, Then it watches the lock, sees no renewal, and takes it
    const lock = await lockDirectory(directory);
    assert.equal(lock.id.file, join(directory, "lock.2"));
    lock.release();
  });

  it("takes over a lock name that is no file: a folder, a named pipe", async () => {
    const directory = mkdtempSync(join(base, "no-file-"));
    mkdirSync(join(directory, "lock.1"));
    assert.equal(spawnSync("mkfifo", [join(directory, "lock.2")]).status, 0);
    const lock = await lockDirectory(directory);
    assert.equal(lock.id.file, join(directory, "lock.3"));
    lock.release();
    // The folder stays (it is not the lock's to remove); the pipe is removed as a lock left below
    assert.deepEqual(readdirSync(directory).sort(), ["lock.1", "lock.3"]);
  });

  it("is freed by hand by emptying the lock file, as the error says, and names the end of its numbers", async () => {
    // Given a lock naming a process that runs but does not use the directory (this one)
    const directory = mkdtempSync(join(base, "by-hand-"));
    writeFileSync(join(directory, "lock.3"), RUNNING_LOCK);
    await assert.rejects(
      lockDirectory(directory),
      (error) =>
        error instanceof DirectoryLockedError &&
        error.message.includes(`empty ${join(directory, "lock.3")}; never delete it)`),
    );
    // When it is emptied, Then it is taken over with the next number
    truncateSync(join(directory, "lock.3"), 0);
    (await lockDirectory(directory)).release();
    assert.deepEqual(readdirSync(directory), ["lock.4"]);
    // And past the last safe integer no number is left: an error, not a lock that no one reads
    const full = mkdtempSync(join(base, "full-"));
    writeFileSync(join(full, `lock.${Number.MAX_SAFE_INTEGER}`), "");
    await assert.rejects(lockDirectory(full), /no lock number is left/);
  });

  it("is taken again once released, and refused while held", async () => {
    const directory = mkdtempSync(join(base, "release-"));
    const lock = await lockDirectory(directory);
    await assert.rejects(lockDirectory(directory), lockedBy(process.pid));
    lock.release();
    assert.equal(directoryLockHolder(directory), undefined);
    const again = await lockDirectory(directory);
    assert.equal(directoryLockHolder(directory), process.pid);
    again.release();
    assert.deepEqual(readdirSync(directory), ["lock.2"]);
  });

  it(
    "tells a process from a later one with its id: refused while the one it names runs, taken over once its id is another's",
    { skip: ownIdentity().boot === undefined && "no /proc here to tell a process's start" },
    async () => {
      // Given a lock naming this very process (another part of it holds the directory)
      const self = ownIdentity();
      const directory = mkdtempSync(join(base, "reused-"));
      writeFileSync(join(directory, "lock.1"), formatIdentity(self));
      // Then it is refused
      await assert.rejects(lockDirectory(directory), lockedBy(process.pid));
      // And given instead a lock naming this process id as an earlier process had it (started at
      // another time: a container's process 1 before the container was restarted, say)
      writeFileSync(
        join(directory, "lock.1"),
        formatIdentity({ ...self, start: String(Number(self.start) + 1) }),
      );
      // Then it is taken over at once
      const lock = await lockDirectory(directory);
      assert.equal(readFileSync(lock.id.file, "utf8"), formatIdentity(self));
      lock.release();
    },
  );

  it(
    "takes over at once a lock whose process ended but was not collected by its parent (a zombie)",
    { skip: ownIdentity().boot === undefined && "no /proc here to tell a process's state" },
    async () => {
      // Given an owner that took the lock and exited, under a parent that never waits for its
      // children (sh starts it in the background, then becomes sleep)
      const directory = mkdtempSync(join(base, "zombie-"));
      const module = new URL("../dir-lock.ts", import.meta.url).href;
      const owner = `await (await import(${JSON.stringify(module)})).lockDirectory(${JSON.stringify(directory)}); process.exit(0);`;
      const parent = spawn(
        "sh",
        ["-c", `"$0" --import tsx --input-type=module -e '${owner}' & exec sleep 60`, process.execPath],
        { stdio: "inherit" },
      );
      try {
        let pid = 0;
        for (;;) {
          const text = existsSync(join(directory, "lock.1"))
            ? readFileSync(join(directory, "lock.1"), "utf8")
            : "";
          pid = Number(text.split(" ")[0]);
          if (pid > 0 && /\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"))) break;
          await sleep(50);
        }
        // When this process asks for the directory, Then it takes it at once
        const lock = await lockDirectory(directory);
        assert.equal(lock.id.file, join(directory, "lock.2"));
        lock.release();
      } finally {
        parent.kill("SIGKILL");
      }
    },
  );

  it(
    "tells an owner paused past its renewals, once it runs again, that another process took the directory over",
    { skip: pidNamespaceSkip() },
    async () => {
      // Given an owner in a pid namespace of its own (another container sharing the folder) that
      // says when it is told of a takeover
      const directory = mkdtempSync(join(base, "paused-"));
      const module = new URL("../dir-lock.ts", import.meta.url).href;
      const script = `
        const { lockDirectory } = await import(${JSON.stringify(module)});
        await lockDirectory(${JSON.stringify(directory)}, {
          onTakenOver: () => { console.log("taken over"); process.exit(0); },
        });
        setInterval(() => {}, 1 << 30); // runs until told or killed
        console.log("owner");`;
      const owner = spawnScriptInNewPidNamespace(script);
      let printed = "";
      owner.child.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString()));
      const exited = once(owner.child, "exit");
      try {
        while (!printed.includes("owner")) await sleep(20);
        // Its renewals tell it nothing while the directory is its own
        await sleep(1_500);
        assert.equal(printed, "owner\n");
        // When the owner is paused (SIGSTOP), and this process takes the directory once no renewal
        // comes for LEASE_WATCH_MS
        owner.kill("SIGSTOP");
        const lock = await lockDirectory(directory);
        assert.deepEqual(readdirSync(directory), ["lock.2"]);
        // And the owner runs again
        owner.kill("SIGCONT");
        // Then it is told within a renewal or two, and the new owner's lock is untouched
        const [code] = (await Promise.race([exited, sleep(10_000, ["still running"], { ref: false })])) as [
          unknown,
        ];
        assert.equal(code, 0);
        assert.equal(printed, "owner\ntaken over\n");
        assert.equal(lock.isHeld(), true);
        assert.deepEqual(readdirSync(directory), ["lock.2"]);
        lock.release();
      } finally {
        owner.kill();
      }
    },
  );

  it(
    "takes over a lock of another pid namespace only once its owner stops renewing it",
    { skip: pidNamespaceSkip() },
    async () => {
      // Given an owner in a pid namespace of its own (as in another container sharing the folder),
      // holding the lock (which renews itself) and doing nothing else
      const directory = mkdtempSync(join(base, "namespace-"));
      const module = new URL("../dir-lock.ts", import.meta.url).href;
      const script = `
        const { lockDirectory } = await import(${JSON.stringify(module)});
        await lockDirectory(${JSON.stringify(directory)});
        setInterval(() => {}, 1 << 30); // runs until killed
        console.log(process.pid);`;
      const owner = spawnScriptInNewPidNamespace(script);
      const exited = new Promise((resolve) => owner.child.once("exit", resolve));
      try {
        const [printed] = (await once(owner.child.stdout, "data")) as [Buffer];
        // It is process 1 there; here, its id names some other process or none
        assert.equal(printed.toString().trim(), "1");
        // When this process asks for the directory while that owner runs, Then it is refused, naming it
        await assert.rejects(lockDirectory(directory), lockedBy(1));
        // And when the owner is killed (its namespace ends with it), Then the lock it left is taken over
        owner.kill();
        await exited;
        const lock = await lockDirectory(directory);
        assert.deepEqual(readdirSync(directory), ["lock.2"]);
        lock.release();
      } finally {
        owner.kill();
      }
    },
  );
});
