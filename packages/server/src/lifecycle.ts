/**
 * Where the server is in its life, shared by the routes and the listener: once draining, readiness
 * answers 503 and every response asks its client to close the connection, so a load balancer
 * moves traffic away before the listener closes (server.ts).
 */
export interface Lifecycle {
  draining: boolean;
}

export function createLifecycle(): Lifecycle {
  return { draining: false };
}
