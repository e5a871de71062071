/** The peer: Fastify serving the same precomputed bytes and headers on the same paths. Args: <spec.json> <path>... */
import Fastify from "fastify";
import { readFileSync } from "node:fs";

const spec = JSON.parse(readFileSync(process.argv[2] as string, "utf8")) as {
  body: string;
  headers: Record<string, string>;
};
const body = readFileSync(spec.body);
const app = Fastify({ logger: false });
for (const path of process.argv.slice(3)) {
  app.get(path, (_req, reply) => {
    reply.headers(spec.headers).send(body);
  });
}
const address = await app.listen({ host: "127.0.0.1", port: 0 });
console.log(`fastify on ${address}`);
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
