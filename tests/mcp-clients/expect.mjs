// What the client scripts share: a failed expectation, told apart from the SDK's own errors,
// and the settings the Rust tests pass in the environment.
export class Failed extends Error {}

export function expect(condition, message) {
  if (!condition) throw new Failed(message);
}

export function env(name) {
  const value = process.env[name];
  expect(value, `${name} is not set`);
  return value;
}

// The MCP Apps view (extension io.modelcontextprotocol/ui): named by exactly the tools that
// show the memory, listed as a resource, and read as an MCP App's HTML.
export const VIEW_URI = 'ui://kioku/memory.html';
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

export async function checkView(client, tools) {
  const naming = tools.filter((tool) => tool._meta?.ui?.resourceUri).map((tool) => tool.name);
  expect(
    JSON.stringify(naming) === JSON.stringify(['load_memories', 'load_profile']),
    `the tools naming a view: ${naming}`,
  );
  for (const tool of tools.filter((t) => naming.includes(t.name))) {
    expect(tool._meta.ui.resourceUri === VIEW_URI, `${tool.name} names ${tool._meta.ui.resourceUri}`);
  }
  const { resources } = await client.listResources();
  const listed = resources.map((r) => `${r.uri} ${r.mimeType}`);
  expect(
    JSON.stringify(listed) === JSON.stringify([`${VIEW_URI} ${VIEW_MIME_TYPE}`]),
    `resources/list: ${listed}`,
  );
  const { contents } = await client.readResource({ uri: VIEW_URI });
  const [view] = contents;
  expect(contents.length === 1 && view.uri === VIEW_URI, `resources/read: ${contents.map((c) => c.uri)}`);
  expect(view.mimeType === VIEW_MIME_TYPE, `the view's MIME type is ${view.mimeType}`);
  expect(view.text?.startsWith('<!doctype html>'), `the view is not HTML: ${view.text?.slice(0, 40)}`);
  expect(view._meta?.ui?.csp, `the view declares no CSP: ${JSON.stringify(view._meta)}`);
}
