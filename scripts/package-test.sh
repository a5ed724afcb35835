#!/usr/bin/env bash
# The package as a user gets it: `npm pack`, install the tarball into a fresh project outside the
# repo (no access to its sources), type-check and run examples/library/ and every TypeScript
# example in README.md and docs/ against the published types, run the conformance suite on a custom env
# with vitest, and run the installed `dreamgym` command, also on a .ts env in an `npm init -y` project. Prints install time and size, with and
# without the optional dependencies (node-llama-cpp, platform binaries), and runs a command in the
# install without them. Run by .ci/run; `npm run test:package`.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$repo"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -1)"
echo "package: $(basename "$tarball"), $(du -k "$tarball" | cut -f1) KiB packed, $(tar -tzf "$tarball" | wc -l) files"

install() { # install DIR [npm flags…]: the tarball alone, timed, then its size on disk
  local dir="$1"; shift
  mkdir -p "$dir" && cd "$dir"
  printf '{ "name": "consumer", "private": true, "type": "module" }\n' > package.json
  local start=$SECONDS
  npm install --no-audit --no-fund --loglevel=error "$@" "$tarball" > /dev/null
  echo "npm install dreamgym $*: $((SECONDS - start)) s, node_modules $(du -sm node_modules | cut -f1) MiB"
}

install "$work/slim" --omit=optional
# Without the optional dependencies (node-llama-cpp, resvg's and sqlite-vec's platform binaries)
# the package imports and runs; PNG plots and SQLite buffers say how to get their binaries, and
# the one the buffer names is enough.
node --input-type=module -e '
  const dreamgym = await import("dreamgym");
  if (typeof dreamgym.runPipeline !== "function") throw new Error("dreamgym has no runPipeline");
'
npx dreamgym collect --env webshop --policy expert --episodes 2 --out offline.jsonl
test "$(wc -l < offline.jsonl)" -eq 2
if npx dreamgym buffer import offline.jsonl --db buffer.db 2> import.err; then
  echo "buffer import ran without sqlite-vec's binary: was it installed after all?"; exit 1
fi
vec="$(grep -o "platform binary sqlite-vec-[a-z0-9-]*" import.err | cut -d' ' -f3)"
test -n "$vec" && test ! -e buffer.db || { cat import.err; exit 1; }
npm install --no-audit --no-fund --loglevel=error --omit=optional "$vec" > /dev/null
npx dreamgym buffer import offline.jsonl --db buffer.db
echo "slim install (--omit=optional): imports, collects; buffers run after npm install $vec"

# A project as `npm init -y` leaves it ("type": "commonjs" from npm 11 on, no "type" before) and
# nothing else but the tarball and tsx: the user's env in src/entry.ts imports dreamgym and a
# relative .ts helper (the stock desk, which imports dreamgym's values), the way they write it.
mkdir -p "$work/npm-init" && cd "$work/npm-init"
npm init -y > /dev/null
start=$SECONDS
npm install --no-audit --no-fund --loglevel=error "$tarball" tsx > /dev/null
echo "npm init -y project: npm install dreamgym tsx: $((SECONDS - start)) s"
mkdir src && cp "$repo/examples/your-env/stock-desk.ts" src/
cat > src/entry.ts <<'EOF'
import { type EnvEntry, TimeLimit } from 'dreamgym';
import stockDesk from './stock-desk';

// The stock desk held to 6 steps.
const entry: EnvEntry = {
  ...stockDesk,
  maxSteps: 6,
  make: (options) => new TimeLimit(stockDesk.make(options), 6),
};
export default entry;
EOF
npx dreamgym collect --env ./src/entry.ts --epsilon 0.3 --episodes 5 --out offline.jsonl
test "$(wc -l < offline.jsonl)" -eq 5 && grep -q '"env":"stock-desk"' offline.jsonl
echo "npm init -y project (type: $(node -p 'require("./package.json").type ?? "none"')): collect --env ./src/entry.ts ran"
install "$work/consumer"
# The user's own tools beside the package, and the AI SDK (an optional peer) with one provider.
npm install --no-audit --no-fund --loglevel=error --save-dev \
  typescript@5.9 vitest@4 @types/node@20 zod@4 ai@6 @ai-sdk/anthropic@3 > /dev/null

cp "$repo"/examples/library/*.ts "$repo/examples/library/tsconfig.json" .
# Every ```ts block of the README and docs/ becomes a file: they must compile against the package.
mkdir -p readme
node -e '
  const fs = require("node:fs");
  let n = 0;
  for (const file of process.argv.slice(1)) {
    const text = fs.readFileSync(file, "utf8");
    for (const [, code] of text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
      if (/from .\.\.?\/src\//.test(code)) throw new Error(`${file}: an example imports the repo sources; import from "dreamgym"`);
      fs.writeFileSync(`readme/example-${++n}.ts`, `export {};\n${code}`);
    }
  }
  if (n < 5) throw new Error(`only ${n} TypeScript examples found in README.md and docs/`);
  console.log(`README.md and docs/: ${n} TypeScript examples`);
' "$repo/README.md" $(find "$repo/docs" -name '*.md' -not -path '*/node_modules/*' -not -path '*/.vitepress/*' -not -path '*/public/*' -not -path '*/reference/*' | sort)
npx tsc -p tsconfig.json
echo "type-check: examples/library and the README and docs examples compile against the package"
node out/synthetic.js
npx vitest run custom-env.test.ts
npx dreamgym --help > help.txt && grep -q "Usage: dreamgym" help.txt
npx dreamgym collect --env webshop --policy expert --episodes 3 --out offline.jsonl
test "$(wc -l < offline.jsonl)" -eq 3

# examples/your-env, the walk-through a user copies: their own env module, from the installed package.
mkdir -p "$work/consumer/your-env" && cp "$repo"/examples/your-env/* "$work/consumer/your-env/"
cd "$work/consumer/your-env"
npx tsc -p tsconfig.json
npx vitest run stock-desk.test.ts
npx dreamgym collect --env ./stock-desk.ts --epsilon 0.3 --episodes 60 --out offline.jsonl
npx dreamgym buffer import offline.jsonl --db buffer.db
npx dreamgym run run.yaml --db buffer.db --out runs/stock-desk
grep -q "dreamgym run: stock-desk" runs/stock-desk/report.md
npx dreamgym fidelity --env ./stock-desk.ts --data offline.jsonl --episodes 10 --out runs/fidelity
test -s runs/fidelity/fidelity.json
npx dreamgym serve --env synthetic:./stock-desk.ts --db buffer.db --port 0 > serve.log 2>&1 &
serve_pid=$!
for _ in $(seq 1 300); do grep -q "Ctrl-C to stop" serve.log && break; kill -0 "$serve_pid" || break; sleep 0.2; done
url="$(grep -o 'http://127.0.0.1:[0-9]*' serve.log | head -1)"
test -n "$url" || { cat serve.log; exit 1; }
# AgentGym's HTTP protocol, then OpenEnv's WebSocket one: an episode each, on the synthetic twin.
node --input-type=module -e '
  import WebSocket from "ws";
  const url = process.argv[1];
  const post = (path, body) => fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());
  const id = await post("/create", {});
  const [first] = await post("/reset", { env_idx: id });
  if (typeof first !== "string" || !first.startsWith("{")) throw new Error(`AgentGym reset: ${first}`);
  const step = await post("/step", { env_idx: id, action: "search[stapler]" });
  if (typeof step.reward !== "number") throw new Error(`AgentGym step: ${JSON.stringify(step)}`);
  const ws = new WebSocket(url.replace("http", "ws") + "/openenv/ws");
  const replies = [];
  ws.on("message", (m) => replies.push(JSON.parse(String(m))));
  await new Promise((resolve, reject) => { ws.on("open", resolve); ws.on("error", reject); });
  const ask = async (message) => { const n = replies.length; ws.send(JSON.stringify(message)); while (replies.length === n) await new Promise((r) => setTimeout(r, 20)); return replies.at(-1); };
  const reset = await ask({ type: "reset", data: {} });
  const act = await ask({ type: "step", data: { action: "answer[12]" } });
  if (reset.type !== "observation" || act.type !== "observation" || act.data.done !== true) throw new Error(`OpenEnv: ${JSON.stringify([reset, act])}`);
  ws.close();
  console.log("served synthetic stock-desk: AgentGym HTTP and OpenEnv WebSocket episodes played");
' "$url"
kill "$serve_pid"; wait "$serve_pid" || true
echo "package test passed"
