// A real OpenID Provider (the certified `oidc-provider`) for kioku's upstream sign-in tests. It
// knows one confidential client, and any login name is an account: `sub-<name>`, with an email
// claim that kioku must never use. Prints `listening http://127.0.0.1:<port>` (its issuer) on
// stdout once it accepts connections. Each run signs with a new key, so that running it again
// on the same port is the provider rotating its keys.
//
// Usage: node server.mjs <client_id> <client_secret> <redirect_uri> [port]  (0 or none: any)
import { createServer } from "node:http";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import Provider from "oidc-provider";

const [clientId, clientSecret, redirectUri, port = "0"] = process.argv.slice(2);
if (!clientId || !clientSecret || !redirectUri) {
  console.error("usage: node server.mjs <client_id> <client_secret> <redirect_uri> [port]");
  process.exit(2);
}

const server = createServer();
// The issuer names the port, so listen first and build the provider once the port is known.
server.listen(Number(port), "127.0.0.1", () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    // A signing key of this run's own, rather than the provider's fixed development keys.
    jwks: {
      keys: [generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" })],
    },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({
        sub,
        email: `${sub.replace(/^sub-/, "")}@example.test`,
        email_verified: true,
      }),
    }),
    // The routes below replace the development sign-in pages.
    features: { devInteractions: { enabled: false } },
  });
  const providerCallback = provider.callback();

  server.on("request", (req, res) => {
    const uid = new URL(req.url, issuer).pathname.match(/^\/interaction\/([^/]+)$/)?.[1];
    if (!uid) return providerCallback(req, res);
    const handle = req.method === "POST" ? signIn : loginForm;
    handle(provider, req, res, uid).catch((err) => {
      console.error(`interaction failed: ${err.message}`);
      res.statusCode = err.status ?? 500;
      res.end(err.message);
    });
  });
  console.log(`listening ${issuer}`);
});

// GET /interaction/:uid: one form with one field, `login`.
async function loginForm(provider, req, res, uid) {
  await provider.interactionDetails(req, res); // refuses an unknown or expired interaction
  res.setHeader("content-type", "text/html; charset=utf-8");
  res.setHeader("cache-control", "no-store");
  res.end(
    `<!doctype html><title>Sign in</title><form method="post" action="/interaction/${uid}">` +
      `<input name="login" autofocus><button>Sign in</button></form>`,
  );
}

// POST /interaction/:uid with `login=<name>`: signs the person in as `sub-<name>` and grants the
// client what it asked for, so that no consent page follows.
async function signIn(provider, req, res) {
  const { params } = await provider.interactionDetails(req, res);
  const login = new URLSearchParams(await body(req)).get("login");
  if (!login) throw Object.assign(new Error("the form needs a login"), { status: 400 });
  const accountId = `sub-${login}`;

  const grant = new provider.Grant({ accountId, clientId: params.client_id });
  // Scopes carry the claims here (the `claims` parameter is not enabled), so granting the
  // requested scopes grants the requested claims.
  grant.addOIDCScope(params.scope);
  const grantId = await grant.save();

  await provider.interactionFinished(
    req,
    res,
    { login: { accountId }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

async function body(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => process.exit(0));
}
