/**
 * Addresses on 127.0.0.1 where nothing listens, for tests of what happens when a server is down.
 *
 * The port is one from 1000 to 1023 that refuses connections. Those are below the system's
 * ephemeral range, so no test's server is ever given one and the port stays refused for the whole
 * test. (A port the system gave out and a test then freed could be handed to another test's server
 * meanwhile, which would answer.) From 1000: fetch refuses to connect to many lower ports, such as
 * 1, 9 and 111, before trying.
 */
import { connect } from "node:net";

const FIRST_PORT = 1000;
const LAST_PORT = 1023;

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

export async function refusedPort(): Promise<number> {
  for (let port = FIRST_PORT; port <= LAST_PORT; port++) {
    if (await refusesConnections(port)) return port;
  }
  throw new Error(`every port from ${FIRST_PORT} to ${LAST_PORT} answers on 127.0.0.1`);
}

/** `<scheme>://127.0.0.1:<refusedPort()>`, e.g. `refusedUrl("ws")`. */
export async function refusedUrl(scheme: "http" | "ws" = "http"): Promise<string> {
  return `${scheme}://127.0.0.1:${await refusedPort()}`;
}
