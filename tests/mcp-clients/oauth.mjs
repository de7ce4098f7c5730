// Connects to kioku's /mcp the way an OAuth-only MCP client does, with the official MCP
// TypeScript SDK's OAuth support, for tests/api/oauth/sdk.rs. The SDK finds the authorization
// server from the 401, registers itself, sends the person to the consent page with PKCE and the
// resource, and exchanges the code; this script plays the person, typing an API token on the
// page. Then it saves and loads through the tools, reads the view, and lets the SDK refresh a
// refused token.
// With KIOKU_CLIENT_METADATA_URL, the client is known by that metadata document instead of
// registering, and the consent page must name it as KIOKU_EXPECT_CLIENT_NAME.
// Exits non-zero naming the first failed expectation; on success prints one JSON line.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Failed, checkView, env, expect } from './expect.mjs';

// Where the SDK is told the person comes back; never served: the script reads the redirect.
const REDIRECT = 'http://127.0.0.1:8976/callback';
const METADATA_URL = process.env.KIOKU_CLIENT_METADATA_URL;

// What an MCP client keeps between runs, kept in memory.
class Provider {
  constructor() {
    this.client = undefined;
    this.saved = undefined;
    this.verifier = undefined;
    this.authorizationUrl = undefined;
  }
  get redirectUrl() { return REDIRECT; }
  get clientMetadataUrl() { return METADATA_URL; }
  get clientMetadata() {
    return {
      client_name: 'kioku test (MCP TypeScript SDK)',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() { return 'sdk-state'; }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  redirectToAuthorization(url) { this.authorizationUrl = url; }
  saveCodeVerifier(verifier) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

// The person at the consent page: types `token`, allows; the code the redirect carries.
async function consent(url, token) {
  const page = await fetch(url, { redirect: 'manual' });
  const html = await page.text();
  expect(page.status === 200, `the consent page answered ${page.status}: ${html.slice(0, 300)}`);
  const name = process.env.KIOKU_EXPECT_CLIENT_NAME;
  expect(!name || html.includes(name), `the consent page does not name ${name}`);
  const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.append(name, value.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&#x27;', "'")
      .replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&'));
  }
  form.append('token', token);
  form.append('decision', 'allow');
  const decided = await fetch(new URL('/oauth/authorize', url), {
    method: 'POST', body: form, redirect: 'manual', headers: { cookie },
  });
  expect(decided.status === 303, `allowing answered ${decided.status}: ${await decided.text()}`);
  const back = new URL(decided.headers.get('location'));
  expect(back.href.startsWith(REDIRECT), `the redirect goes to ${back.origin}`);
  expect(back.searchParams.get('state') === 'sdk-state', 'the state did not come back');
  return back.searchParams.get('code');
}

async function connect(url, provider) {
  const client = new Client({ name: 'kioku-oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return client;
}

async function main() {
  const url = new URL(env('KIOKU_MCP_URL'));
  const provider = new Provider();
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  try {
    await new Client({ name: 'kioku-oauth-test', version: '1.0.0' }).connect(transport);
    throw new Failed('connected without authorizing');
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  expect(provider.client?.client_id, 'the SDK did not register a client');
  expect(
    !METADATA_URL || provider.client.client_id === METADATA_URL,
    `the SDK registered ${provider.client.client_id} instead of naming its metadata document`,
  );
  const asked = provider.authorizationUrl;
  expect(asked, 'the SDK did not send the person to authorize');
  expect(asked.searchParams.get('code_challenge_method') === 'S256', 'no PKCE S256 challenge');
  expect(asked.searchParams.get('resource') === url.href, `resource is ${asked.searchParams.get('resource')}`);
  await transport.finishAuth(await consent(asked, env('KIOKU_TOKEN')));
  expect(provider.saved?.refresh_token, 'no refresh token was issued');

  const client = await connect(url, provider);
  const summary = `Saved through MCP with an OAuth token at ${new Date().toISOString()}`;
  const saved = await client.callTool({ name: 'save_memory', arguments: { summary } });
  expect(!saved.isError, `save_memory failed: ${JSON.stringify(saved)}`);
  await checkView(client, (await client.listTools()).tools);

  // A refused access token: the SDK refreshes and retries by itself.
  const firstRefresh = provider.saved.refresh_token;
  provider.saved = { ...provider.saved, access_token: 'kioku_at_refused' };
  const loaded = await connect(url, provider).then((c) => c.callTool({ name: 'load_memories', arguments: {} }));
  expect(!loaded.isError, `load_memories failed: ${JSON.stringify(loaded)}`);
  const thread = saved.structuredContent.thread_id;
  const entry = (loaded.structuredContent.data?.[thread] ?? []).find((e) => e.summary === summary);
  expect(entry, 'load_memories did not find the saved summary');
  expect(provider.saved.refresh_token !== firstRefresh, 'the refresh token was not rotated');
  // Who saved it, as the tool shows it, for the test to check against the client it registered.
  console.log(JSON.stringify({
    saved: summary, thread_id: thread, client_id: provider.client.client_id, writer: entry.writer,
  }));
}

main().catch((err) => {
  console.error(err instanceof Failed ? `FAILED: ${err.message}` : err);
  process.exit(1);
});
