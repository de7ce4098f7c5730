// Loaded before the MCP conformance suite (node --import): it adds kioku's bearer token to every
// request the suite sends, through Node's fetch (the SDK client's) and undici's request (the
// DNS-rebinding scenario's). The suite has no option for a header yet (its issue 453), and kioku
// answers nobody without a token.
import { Agent, setGlobalDispatcher } from 'undici';

const token = process.env.KIOKU_TOKEN;
if (!token) {
  throw new Error('KIOKU_TOKEN is not set');
}
const withToken = (dispatch) => (options, handler) => {
  const sent = options.headers;
  const headers = Array.isArray(sent)
    ? [...sent, 'authorization', `Bearer ${token}`]
    : { ...(sent || {}), authorization: `Bearer ${token}` };
  return dispatch({ ...options, headers }, handler);
};
setGlobalDispatcher(new Agent().compose(withToken));
