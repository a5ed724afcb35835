// njs (nginx's JavaScript module): sends each request to the dreamgym instance that holds the
// session it names -- instance I of N holds the ids with `id mod N = I` -- or, for a request that
// names none (a new session, an OpenEnv reset without session_id, the read-only routes), to any
// instance. nginx itself cannot read a JSON body; this reads the one field it needs.
const INSTANCES = 3;

/** Where each route names its session: the JSON body of POSTs, the query of GETs. */
const BODY = {
  '/reset': 'env_idx',
  '/step': 'env_idx',
  '/close': 'env_idx',
  '/alfworld/reset': 'id',
  '/alfworld/step': 'id',
  '/alfworld/close': 'id',
  '/openenv/reset': 'session_id',
  '/openenv/step': 'session_id',
  '/openenv/close': 'session_id',
};
const QUERY = {
  '/observation': 'env_idx',
  '/available_actions': 'env_idx',
  '/instruction_text': 'env_idx',
  '/state': 'env_idx',
  '/alfworld/observation': 'id',
  '/alfworld/available_actions': 'id',
  '/alfworld/detail': 'id',
  '/openenv/state': 'session_id',
};

function sessionId(r) {
  let value;
  if (r.method === 'POST' && BODY[r.uri]) {
    try {
      value = JSON.parse(r.requestText || 'null')[BODY[r.uri]];
    } catch (_malformed) {
      return undefined;
    }
  } else if (r.method === 'GET' && QUERY[r.uri] && /^\d+$/.test(r.args[QUERY[r.uri]] || '')) {
    value = Number(r.args[QUERY[r.uri]]);
  }
  return Number.isInteger(value) && value >= 0 ? value : undefined;
}

function route(r) {
  const id = sessionId(r);
  r.internalRedirect(id === undefined ? '@any' : `@instance${id % INSTANCES}`);
}

export default { route };
