// npm run bench -- <name> [...]: each benchmark prints its figures as ratios against a
// baseline measured in the same run.
const benches: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  store: () => import('./store.ts'),
  'scale-store': () => import('./scale-store.ts'),
  scale: () => import('./scale.ts'),
  upload: () => import('./upload.ts'),
  convert: () => import('./convert.ts'),
  hide: () => import('./hide.ts'),
  stego: () => import('./stego.ts'),
  analyse: () => import('./analyse.ts'),
  memory: () => import('./memory.ts'),
  accuracy: () => import('./accuracy/index.ts'),
};

const [name, ...args] = process.argv.slice(2);
const names = name ? [name] : Object.keys(benches);
for (const n of names) {
  const load = benches[n];
  if (!load) {
    process.stderr.write(`unknown benchmark "${n}"; have: ${Object.keys(benches).join(', ')}\n`);
    process.exit(2);
  }
  process.stdout.write(`\n== ${n} ==\n`);
  await (await load()).run(args);
}
