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
