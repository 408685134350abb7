/**
 * The HTTP app of `npm start`: the REST API with the web app and the share links registered on it.
 * One function, so the process and its tests (the OpenAPI document, the sign-in origins) serve the
 * same routes.
 */
import type { Database, Dialect } from "@abas/db";
import { buildApp, type AbasApp } from "@abas/server";
import { webPlugin } from "@abas/web";
import type { Kysely } from "kysely";

import type { ServiceConfig } from "./config.js";

export interface ServiceAppOptions {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly rpcUrl: string;
  readonly programId: string | undefined;
  readonly config: Pick<ServiceConfig, "publicUrl" | "logLevel" | "trustProxy">;
}

export async function buildServiceApp(options: ServiceAppOptions): Promise<AbasApp> {
  const { config } = options;
  const app = await buildApp({
    db: options.db,
    dialect: options.dialect,
    rpcUrl: options.rpcUrl,
    logLevel: config.logLevel,
    logStream: process.stderr,
    ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
  });
  // The web app (/app) and the share link (/api/actions, /actions.json) on the API's port.
  await app.register(webPlugin, {
    db: options.db,
    dialect: options.dialect,
    rpcUrl: options.rpcUrl,
    programId: options.programId,
    ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
  });
  return app;
}
