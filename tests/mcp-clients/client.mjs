// Drives kioku's /mcp endpoint with the official MCP TypeScript SDK for tests/api/mcp.rs: lists the
// tools, saves, loads, searches, forgets and provokes each tool error, as client.py does with the
// Python SDK. Exits non-zero naming the first failed expectation; on success prints one JSON line
// with what the Rust test then checks through the HTTP API.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Failed, checkView, env, expect } from './expect.mjs';

const show = (value) => JSON.stringify(value);

// Each call's structuredContent, after the checks every successful tool result must pass.
function content(name, result) {
  expect(!result.isError, `${name} failed: ${show(result)}`);
  expect(result.structuredContent, `${name} has no structuredContent: ${show(result)}`);
  expect(
    result.content?.some((item) => item.type === 'text' && item.text.trim() !== ''),
    `${name} has no text content: ${show(result)}`,
  );
  return result.structuredContent;
}

async function call(client, name, args) {
  return content(name, await client.callTool({ name, arguments: args }));
}

// A tool error with `codes` (one of), through callTool as an application calls it: the SDK
// validates an error's structuredContent against the tool's outputSchema too.
async function callExpectingError(client, name, args, codes) {
  let result;
  try {
    result = await client.callTool({ name, arguments: args });
  } catch (err) {
    throw new Failed(`${name} should give the tool error ${codes}, but callTool threw: ${err.message}`);
  }
  checkToolError(name, result, codes);
}

// `codes` null: any code will do.
function checkToolError(name, result, codes) {
  const error = result.structuredContent;
  expect(result.isError === true, `${name} should fail with ${codes}: ${show(result).slice(0, 300)}`);
  expect(
    error?.status === 'error' &&
      (codes === null || codes.includes(error.code)) &&
      typeof error.message === 'string' &&
      error.message.length > 10,
    `${name} should fail with ${codes}: ${show(error)}`,
  );
  expect(result.content?.some((item) => item.type === 'text'), `${name}'s error has no text content`);
}

// Arguments the schema refuses, or an unknown tool: a tool error with `codes`, or a JSON-RPC
// error from the server with `rpcCodes`. A raw request, so no client-side check intervenes; an
// HTTP error status surfaces as a transport error, not an McpError, and fails.
async function callExpectingRefusal(client, name, args, codes, rpcCodes) {
  let result;
  try {
    result = await client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema);
  } catch (err) {
    expect(
      err instanceof McpError && rpcCodes.includes(err.code),
      `${name} ${show(args)} should be refused with ${codes} or JSON-RPC ${rpcCodes}: ${err}`,
    );
    return;
  }
  checkToolError(name, result, codes);
}

function isType(schema, type) {
  const declared = schema?.type;
  return declared === type || (Array.isArray(declared) && declared.includes(type));
}

function checkTool(tools, name, { fields, required, readOnly, destructive, idempotent }) {
  const tool = tools.find((t) => t.name === name);
  expect(tool, `no tool ${name} in ${show(tools.map((t) => t.name))}`);
  expect(tool.description?.trim(), `${name} has no description`);
  const properties = tool.inputSchema.properties ?? {};
  for (const [field, type] of Object.entries(fields)) {
    expect(isType(properties[field], type), `${name}.${field} should be a ${type}: ${show(properties[field])}`);
  }
  const requiredNow = [...(tool.inputSchema.required ?? [])].sort();
  expect(show(requiredNow) === show(required), `${name} requires ${show(requiredNow)}, not ${show(required)}`);
  expect(tool.outputSchema?.type === 'object', `${name} has no outputSchema: ${show(tool.outputSchema)}`);
  // The spec's defaults: a tool is not read-only, may be destructive, is not idempotent.
  const hints = tool.annotations ?? {};
  const actual = {
    readOnly: hints.readOnlyHint ?? false,
    destructive: hints.destructiveHint ?? true,
    idempotent: hints.idempotentHint ?? false,
  };
  const wanted = { readOnly, destructive, idempotent };
  for (const hint of Object.keys(wanted)) {
    if (wanted[hint] === undefined) continue;
    expect(actual[hint] === wanted[hint], `${name}: ${hint}Hint should be ${wanted[hint]}: ${show(hints)}`);
  }
}

// The summaries of `thread` in a load's `data`.
function summariesOf(load, thread) {
  return (load.data?.[thread] ?? []).map((entry) => entry.summary);
}

async function scenario(client, expected) {
  const instructions = client.getInstructions();
  expect(instructions?.trim(), 'initialize gave no instructions');

  // The SDK compiles each output schema as it lists the tools; a schema that is not standard
  // JSON Schema (a custom format such as "uint64") makes it log a warning per tool.
  const warnings = [];
  const warn = console.warn;
  console.warn = (...args) => warnings.push(args.join(' '));
  let tools;
  try {
    ({ tools } = await client.listTools());
  } finally {
    console.warn = warn;
  }
  expect(warnings.length === 0, `listing the tools logged ${warnings.length} warnings, the first: ${warnings[0]}`);
  checkTool(tools, 'save_memory', {
    fields: { summary: 'string', thread_id: 'string' },
    required: ['summary'],
    readOnly: false,
    destructive: false,
    idempotent: false,
  });
  checkTool(tools, 'load_memories', {
    fields: { q: 'string', thread_id: 'string', since: 'string', before: 'string', limit: 'integer' },
    required: [],
    readOnly: true,
  });
  checkTool(tools, 'forget_memory', {
    fields: { thread_id: 'string', timestamp: 'string', profile: 'boolean' },
    required: [],
    readOnly: false,
    destructive: true,
  });
  checkTool(tools, 'load_profile', { fields: { version: 'integer' }, required: [], readOnly: true });
  checkTool(tools, 'save_profile', {
    fields: { profile: 'string', expected_version: 'integer' },
    required: ['profile'],
    readOnly: false,
    destructive: false,
  });
  await checkView(client, tools);

  // A word no other summary holds, so that a search finds exactly these.
  const word = `ts${randomUUID().replaceAll('-', '')}`;
  const forgotten = `Through MCP from TypeScript, to forget: ${word}`;
  const kept = `Through MCP from TypeScript, to keep: ${word}`;

  const first = await call(client, 'save_memory', { summary: forgotten });
  expect(
    first.status === 'saved' && first.count >= 1 && typeof first.thread_id === 'string' && typeof first.timestamp === 'string',
    `save_memory answered ${show(first)}`,
  );
  const thread = first.thread_id;
  const second = await call(client, 'save_memory', { summary: kept, thread_id: thread });
  expect(second.status === 'saved' && second.thread_id === thread, `second save_memory answered ${show(second)}`);

  const all = await call(client, 'load_memories', {});
  expect(all.status === 'loaded' && all.count === Object.keys(all.data).length, `load_memories answered ${show(all)}`);
  expect(show(summariesOf(all, thread)) === show([forgotten, kept]), `load_memories lacks the saves: ${show(all)}`);
  expect(
    all.data[thread][0].timestamp === first.timestamp,
    `the load's timestamp differs from the save's: ${show(all.data[thread][0])} vs ${first.timestamp}`,
  );
  expect(
    summariesOf(all, expected.thread).includes(expected.summary),
    `load_memories lacks the summary saved through HTTP: ${show(all)}`,
  );
  // Saved with the same token through either door: each entry names it as its writer.
  for (const entry of [...all.data[thread], ...all.data[expected.thread]]) {
    expect(show(entry.writer) === show(expected.writer), `an entry's writer is ${show(entry.writer)}, not ${show(expected.writer)}`);
  }

  const found = await call(client, 'load_memories', { q: word });
  expect(found.status === 'found' && found.count === 2, `a search for the new word answered ${show(found)}`);
  for (const result of found.results) {
    expect(result.thread_id === thread && result.summary.includes(word), `unexpected search result ${show(result)}`);
    expect(show(result.writer) === show(expected.writer), `a search result's writer is ${show(result.writer)}`);
  }
  const missing = await call(client, 'load_memories', { q: `nothing${word}` });
  expect(missing.status === 'no_match' && missing.count === 0, `a search for no word answered ${show(missing)}`);

  const one = await call(client, 'load_memories', { thread_id: thread });
  expect(show(Object.keys(one.data)) === show([thread]), `load with thread_id gave ${show(Object.keys(one.data))}`);
  // The newest thread is this one; limit counts threads.
  const newest = await call(client, 'load_memories', { limit: 1 });
  expect(show(Object.keys(newest.data)) === show([thread]), `load with limit 1 gave ${show(newest)}`);

  const forget = await call(client, 'forget_memory', { thread_id: thread, timestamp: first.timestamp });
  expect(
    show(forget) === show({ status: 'forgotten', thread_id: thread, forgotten_entries: 1, thread_removed: false }),
    `forget_memory answered ${show(forget)}`,
  );
  const after = await call(client, 'load_memories', { thread_id: thread });
  expect(show(summariesOf(after, thread)) === show([kept]), `after forget_memory the thread holds ${show(after)}`);

  await callExpectingError(client, 'save_memory', { summary: 'x'.repeat(5001) }, ['summary_too_long']);
  await callExpectingError(client, 'save_memory', { summary: ' \n\t ' }, ['blank_summary']);
  await callExpectingError(client, 'forget_memory', { thread_id: `no-such-thread-${word}` }, ['nothing_to_forget']);
  const unfit = ['malformed_json', 'missing_summary'];
  await callExpectingRefusal(client, 'save_memory', { summary: 42 }, unfit, [ErrorCode.InvalidParams]);
  await callExpectingRefusal(client, 'save_memory', {}, unfit, [ErrorCode.InvalidParams]);
  await callExpectingRefusal(client, `no_such_tool_${word}`, {}, null, [
    ErrorCode.InvalidParams,
    ErrorCode.MethodNotFound,
  ]);

  // The refusals above saved nothing: the thread is as forget_memory left it.
  const final = await call(client, 'load_memories', { thread_id: thread });
  expect(show(summariesOf(final, thread)) === show([kept]), `the refusals changed the thread: ${show(final)}`);

  // The profile: written from nothing, refused from a stale version, read, and carried by a load.
  const none = await call(client, 'load_profile', {});
  expect(show(none) === show({ status: 'empty' }), `load_profile before any answered ${show(none)}`);
  const profile = `Prefers TypeScript; ${word}`;
  const written = await call(client, 'save_profile', { profile, expected_version: 0 });
  expect(written.status === 'saved' && written.version === 1, `save_profile answered ${show(written)}`);
  await callExpectingError(client, 'save_profile', { profile: 'stale', expected_version: 0 }, ['profile_conflict']);
  const read = await call(client, 'load_profile', {});
  expect(read.status === 'profile' && read.profile === profile && read.version === 1, `load_profile answered ${show(read)}`);
  const carried = await call(client, 'load_memories', {});
  expect(carried.profile?.profile === profile, `load_memories lacks the profile: ${show(carried)}`);
  return { client: 'typescript', thread_id: thread, kept, forgotten, forgotten_timestamp: first.timestamp, profile };
}

async function main() {
  const url = new URL(env('KIOKU_MCP_URL'));
  const token = env('KIOKU_TOKEN');
  const expected = {
    summary: env('KIOKU_EXPECT_SUMMARY'),
    thread: env('KIOKU_EXPECT_THREAD'),
    writer: JSON.parse(env('KIOKU_EXPECT_WRITER')),
  };
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'kioku-test-typescript', version: '1.0.0' });
  await client.connect(transport);
  try {
    console.log(JSON.stringify(await scenario(client, expected)));
  } finally {
    await client.close();
  }
}

main().catch((err) => {
  // Failed carries our own message; anything else (the SDK's, the transport's) is shown as Node
  // shows an error, with its stack and its cause: fetch's "fetch failed" says what failed (a
  // reset, a closed socket, a timeout) only in its cause.
  console.error('client.mjs:', err instanceof Failed ? err.message : err);
  process.exit(1);
});
