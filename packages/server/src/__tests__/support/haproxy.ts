/**
 * Debian's HAProxy (`apt-get install haproxy`) run in the foreground on the repository's own
 * configuration (deploy/haproxy/haproxy.cfg), with its runtime socket to read which replicas it
 * considers up.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const HAPROXY_CONFIG = fileURLToPath(
  new URL("../../../../../deploy/haproxy/haproxy.cfg", import.meta.url),
);
const HAPROXY = "/usr/sbin/haproxy";

/** A skip reason for node:test when HAProxy is not installed, or false. */
export function haproxySkipReason(): string | false {
  return existsSync(HAPROXY) ? false : "install Debian's HAProxy: sudo apt-get install haproxy";
}

/** A port that was free a moment ago (HAProxy and a restarted replica need to know theirs up front). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface RunningHaproxy {
  readonly url: string;
  /** `replica1` -> `UP`, `DOWN`, ... as HAProxy sees it now. */
  serverStates(): Promise<Map<string, string>>;
  stop(): Promise<void>;
}

function runtimeCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = connect(socket);
    let answer = "";
    client.on("data", (chunk: Buffer) => (answer += chunk.toString("utf8")));
    client.on("end", () => resolve(answer));
    client.on("error", reject);
    client.end(`${command}\n`);
  });
}

const RETRY_ON = /^ *retry-on .*$/m;

export async function startHaproxy(options: {
  readonly directory: string;
  readonly replicas: readonly [string, string];
  /** false: the same configuration with `retry-on none`, to show what the replicas do on their own. */
  readonly retries?: boolean;
}): Promise<RunningHaproxy> {
  const port = await freePort();
  const name = options.retries === false ? "without-retries" : "haproxy";
  const socket = join(options.directory, `${name}.sock`);
  let config = HAPROXY_CONFIG;
  if (options.retries === false) {
    const text = readFileSync(HAPROXY_CONFIG, "utf8");
    if (!RETRY_ON.test(text)) throw new Error(`${HAPROXY_CONFIG} has no retry-on line`);
    config = join(options.directory, `${name}.cfg`);
    writeFileSync(config, text.replace(RETRY_ON, "    retry-on none"));
  }
  const env = {
    ...process.env,
    ABAS_LB_BIND: `127.0.0.1:${port}`,
    ABAS_LB_SOCKET: socket,
    ABAS_REPLICA_1: options.replicas[0],
    ABAS_REPLICA_2: options.replicas[1],
  };
  const check = spawnSync(HAPROXY, ["-c", "-q", "-f", config], { env, encoding: "utf8" });
  if (check.status !== 0) throw new Error(`haproxy refused its configuration: ${check.stderr}`);
  // -db: stay in the foreground, so this process owns it and can stop it by its pid.
  const child: ChildProcess = spawn(HAPROXY, ["-db", "-f", config], { env, stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const serverStates = async (): Promise<Map<string, string>> => {
    const csv = await runtimeCommand(socket, "show stat");
    const states = new Map<string, string>();
    for (const line of csv.split("\n")) {
      const fields = line.split(",");
      if (fields[0] === "abas_replicas" && fields[1]?.startsWith("replica"))
        states.set(fields[1], fields[17] ?? "");
    }
    return states;
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await serverStates();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error("haproxy did not start");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    serverStates,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
