import { createServer, type AddressInfo } from "node:net";

/** A port nothing listens on: one the system gave out, then closed. */
export function closedPort(): Promise<number> {
  return new Promise((resolvePort) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}
