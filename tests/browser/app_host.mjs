// A chat host, as far as MCP Apps go, for tests/browser/app_view.py: the official MCP client
// calls one of kioku's tools, reads the view the tool names, shows it in a sandboxed frame and
// connects it through the official ext-apps app-bridge, which passes the view's tool calls on
// to kioku. esbuild bundles it for the page; the scenario drives it through `window.host`.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
} from '@modelcontextprotocol/ext-apps/app-bridge';

const HOST = { name: 'kioku-test-host', version: '1.0.0' };

// What the page records for the scenario to read: links the view asked to open.
const opened = [];

async function connect(token) {
  const client = new Client(HOST, {
    capabilities: {
      extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } },
    },
  });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', location.href), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

// Calls `tool` with `args` as a model would, then shows its view with the host's `context`
// (locale, theme, time zone); resolves once the view has its result. Returns what the host
// read, for the scenario's checks.
async function show({ token, tool, args, context }) {
  const client = await connect(token);
  const { tools } = await client.listTools();
  const named = tools.filter((t) => getToolUiResourceUri(t)).map((t) => t.name);
  const uri = getToolUiResourceUri(tools.find((t) => t.name === tool));
  if (!uri) throw new Error(`${tool} names no view; the tools that do: ${named}`);
  const { contents } = await client.readResource({ uri });
  const [view] = contents;

  const frame = document.createElement('iframe');
  // A host's frame: scripts, and nothing of the host's origin.
  frame.sandbox = 'allow-scripts';
  frame.title = 'kioku';
  frame.srcdoc = view.text;
  document.querySelector('main').replaceChildren(frame);

  const bridge = new AppBridge(client, HOST, { openLinks: {}, serverTools: {}, logging: {} }, {
    hostContext: { displayMode: 'inline', platform: 'web', ...context },
  });
  bridge.onopenlink = async ({ url }) => {
    opened.push(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${height}px`;
  };
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  // Listening before the frame's script runs: its first message is ui/initialize.
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  await initialized;

  const result = await client.callTool({ name: tool, arguments: args });
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  return { mimeType: view.mimeType, named, meta: view._meta ?? null };
}

window.host = { show, opened };
