import { defineConfig } from 'vitepress';

const guide = [
  { text: 'Quickstart', link: '/guide/quickstart' },
  { text: 'Concepts', link: '/guide/concepts' },
  { text: 'Use it as a library', link: '/guide/library' },
  { text: 'The CLI', link: '/guide/cli' },
  { text: 'Running the loop', link: '/guide/run' },
  { text: 'Your own environment', link: '/guide/your-environment' },
  { text: 'Built-in and remote envs', link: '/guide/builtin-envs' },
  { text: 'Web envs and WebArena', link: '/guide/web' },
  { text: 'LLMs and the LLM experience model', link: '/guide/llm' },
  { text: 'The LLM policy and export-rl', link: '/guide/llm-policy' },
  { text: 'Serving to external trainers', link: '/guide/serving' },
  { text: 'The replay buffer (PostgreSQL)', link: '/guide/buffer' },
  { text: 'The curriculum', link: '/guide/curriculum' },
  { text: 'Dreaming from real states', link: '/guide/branching' },
  { text: 'Fidelity and quality', link: '/guide/fidelity-quality' },
  { text: 'The viewer', link: '/guide/viewer' },
  { text: 'Benchmarks', link: '/guide/benchmarks' },
  { text: 'Architecture', link: '/guide/architecture' },
  { text: 'Development', link: '/guide/development' },
];

const formats = [
  { text: 'Environments (contract, servers)', link: '/environments' },
  { text: 'Python trainers', link: '/trainers' },
  { text: 'MCP environments', link: '/mcp-env' },
  { text: 'Transcripts', link: '/transcripts' },
  { text: 'Trajectory format', link: '/trajectory-format' },
  { text: 'export-rl format', link: '/export-rl-format' },
  { text: 'Web observation', link: '/web-observation' },
  { text: 'Web experience model', link: '/web-experience-model' },
  { text: 'Fidelity and false positives', link: '/fidelity' },
  { text: 'The generic experience model', link: '/generic-model' },
  { text: 'Quality definitions', link: '/quality' },
  { text: 'Deployment', link: '/deploy' },
  { text: 'Site: forum', link: '/sites/forum' },
  { text: 'Site: store', link: '/sites/store' },
];

const results = [
  { text: 'Webshop and household', link: '/results/demo' },
  { text: 'Ablations', link: '/results/ablations' },
  { text: 'Failure breakdown', link: '/results/breakdown' },
  { text: 'Experience quality', link: '/results/quality' },
  { text: 'Data scaling', link: '/results/scaling' },
  { text: 'Web', link: '/results/web' },
  { text: 'Web false positives', link: '/results/web-false-positives' },
  { text: 'Transfer', link: '/results/transfer' },
  { text: 'Benchmarks', link: '/results/benchmarks' },
  { text: 'Benchmark JSON, every figure', link: '/results/bench/' },
];

const experiments = [
  { text: 'Webshop and household demo', link: '/experiments/webshop-household' },
  { text: 'Result rank and the plateau', link: '/experiments/result-rank' },
  { text: 'Ablations', link: '/experiments/ablations' },
  { text: 'Curriculum', link: '/experiments/curriculum' },
  { text: 'Experience quality', link: '/experiments/quality' },
  { text: 'Data scaling', link: '/experiments/scaling' },
  { text: 'Web demo', link: '/experiments/web-demo' },
  { text: 'Web false positives', link: '/experiments/web-false-positives' },
  { text: 'Transfer', link: '/experiments/transfer' },
];

/**
 * The documentation site. Dead internal links fail the build (VitePress' default; not turned
 * off here), except the TypeDoc reference, which is static HTML copied from docs/public/api.
 */
export default defineConfig({
  title: 'dreamgym',
  description: 'Train LLM-agent policies with RL on synthesized experience (after DreamGym, 2025).',
  cleanUrls: true,
  lastUpdated: false,
  ignoreDeadLinks: [/^\/api\//],
  srcExclude: ['public/**'],
  themeConfig: {
    search: { provider: 'local' },
    nav: [
      { text: 'Guide', link: '/guide/quickstart' },
      { text: 'CLI', link: '/reference/cli' },
      { text: 'API', link: '/api/index.html', target: '_self' },
      { text: 'Results', link: '/results/demo' },
      { text: 'Lab notebook', link: '/experiments/webshop-household' },
    ],
    sidebar: [
      { text: 'Guide', items: guide },
      { text: 'Reference', items: [{ text: 'CLI', link: '/reference/cli' }, ...formats] },
      { text: 'Results', items: results },
      { text: 'Lab notebook', collapsed: true, items: experiments },
    ],
    socialLinks: [{ icon: 'github', link: 'https://github.com/dreamgym/dreamgym' }],
  },
});
