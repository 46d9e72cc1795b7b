// A minimal GitHub webhook receiver on @octokit/webhooks, to compare
// `gatehouse serve` with under the same load: it reads the body, verifies
// its signature and parses it (verifyAndReceive), stores nothing and
// answers 202. PORT (default 3001) and SECRET (default loadgen-secret).
import { createServer } from "node:http";
import { Webhooks } from "@octokit/webhooks";

const webhooks = new Webhooks({ secret: process.env.SECRET ?? "loadgen-secret" });
createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    try {
      await webhooks.verifyAndReceive({
        id: req.headers["x-github-delivery"],
        name: req.headers["x-github-event"],
        payload: Buffer.concat(chunks).toString("utf8"),
        signature: req.headers["x-hub-signature-256"],
      });
      res.writeHead(202).end("accepted\n");
    } catch {
      res.writeHead(401).end("signature missing or invalid\n");
    }
  });
}).listen(Number(process.env.PORT ?? 3001), "127.0.0.1");
