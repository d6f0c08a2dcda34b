// Builds the explorer's assets from src/ into ../assets/: index.html (the login form, with
// src/critical.css and src/loader.js inlined: the only file served without credentials when
// the server has users), app.js (one minified bundle), app.css, THIRD_PARTY_LICENSES.txt (the
// npm packages inside app.js and their licenses) and MANIFEST.txt (the files the server embeds).
//
//   npm ci && npm run build

import {build, transform} from 'esbuild';
import {mkdir, readFile, writeFile, readdir, rm, stat} from 'node:fs/promises';
import {existsSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const src = path.join(here, 'src');
const out = path.resolve(here, '..', 'assets');
const FILES = ['index.html', 'app.js', 'app.css', 'THIRD_PARTY_LICENSES.txt'];

await mkdir(out, {recursive: true});
// Only the files this build writes live in assets/.
for (const f of await readdir(out)) {
  if (![...FILES, 'MANIFEST.txt'].includes(f)) await rm(path.join(out, f), {recursive: true});
}

const js = await build({
  entryPoints: [path.join(src, 'main.js')],
  bundle: true,
  minify: process.env.NO_MINIFY ? false : true,
  format: 'iife',
  target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
  outfile: path.join(out, 'app.js'),
  metafile: true,
  legalComments: 'none', // the licenses are in THIRD_PARTY_LICENSES.txt
  define: {'process.env.NODE_ENV': '"production"'},
  logLevel: 'warning',
});

await build({
  entryPoints: [path.join(src, 'app.css')],
  bundle: true,
  minify: process.env.NO_MINIFY ? false : true,
  outfile: path.join(out, 'app.css'),
  logLevel: 'warning',
});

// index.html with the loader and the login form's styles inline.
const loader = await build({
  entryPoints: [path.join(src, 'loader.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  write: false,
  logLevel: 'warning',
});
const loaderJs = loader.outputFiles[0].text.trim();
const criticalCss = (await transform(await readFile(path.join(src, 'critical.css'), 'utf8'), {loader: 'css', minify: true})).code.trim();
if (/<\/script/i.test(loaderJs) || /<\/style/i.test(criticalCss)) throw new Error('inlined code would close its element');
let html = await readFile(path.join(src, 'index.html'), 'utf8');
const inline = {'loader.js': loaderJs, 'critical.css': criticalCss};
html = html.replace(/\/\*INLINE:([\w.]+)\*\//g, (_, name) => {
  if (!(name in inline)) throw new Error(`index.html inlines an unknown file: ${name}`);
  return inline[name];
});
await writeFile(path.join(out, 'index.html'), html);
await writeFile(path.join(out, 'MANIFEST.txt'), FILES.join('\n') + '\n');

// The packages whose code is in the bundle, found from esbuild's metafile.
const packages = new Map();
for (const input of Object.keys(js.metafile.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (!m) continue;
  const dir = path.join(here, 'node_modules', m[1]);
  if (packages.has(m[1])) continue;
  const pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
  let licenseText = '';
  for (const name of ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'license', 'LICENCE', 'license.md']) {
    const f = path.join(dir, name);
    if (existsSync(f)) {
      licenseText = (await readFile(f, 'utf8')).trim();
      break;
    }
  }
  packages.set(m[1], {name: pkg.name, version: pkg.version, license: pkg.license || '(see text)', homepage: pkg.homepage || '', licenseText});
}
const sorted = [...packages.values()].sort((a, b) => a.name.localeCompare(b.name));
let notice =
  'HopDB Explorer (app.js) bundles the following npm packages.\n' +
  'Each is listed with its version and license, followed by its license text.\n\n';
notice += sorted.map((p) => `  ${p.name} ${p.version}  ${p.license}`).join('\n') + '\n';
for (const p of sorted) {
  notice += `\n${'='.repeat(78)}\n${p.name} ${p.version} (${p.license})${p.homepage ? `\n${p.homepage}` : ''}\n${'-'.repeat(78)}\n`;
  notice += (p.licenseText || `Licensed under ${p.license}; the package ships no license file.`) + '\n';
}
await writeFile(path.join(out, 'THIRD_PARTY_LICENSES.txt'), notice);

let total = 0;
for (const f of FILES) {
  const s = (await stat(path.join(out, f))).size;
  total += s;
  console.log(`${f.padEnd(12)} ${(s / 1024).toFixed(1).padStart(8)} KiB`);
}
console.log(`${'total'.padEnd(12)} ${(total / 1024).toFixed(1).padStart(8)} KiB  (${sorted.length} npm packages bundled)`);
