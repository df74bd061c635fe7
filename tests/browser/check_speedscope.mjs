// Drives speedscope's released app (npm package "speedscope", dist/release)
// in headless Debian Chromium and checks what it imported from our
// `treport --perf-script` text; broken variants of the text must be refused.
//
//   node check_speedscope.mjs CACHE_DIR busy.perf busy.folded
//
// The profile is loaded as a user does (the landing page's file input, file
// name busy.perf so speedscope has to detect the format itself). What
// speedscope imported is read back from its own export (Ctrl+S writes a
// .speedscope.json of its in-memory profiles) and from the sandwich view's
// table in the DOM. Prints PASS:/FAIL: lines; exits 1 if any check failed.
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import {createRequire} from 'node:module'

const [cacheDir, perfPath, foldedPath] = process.argv.slice(2)
const require = createRequire(path.join(cacheDir, 'package.json'))
const {chromium} = require('playwright-core')
const appDir = path.join(cacheDir, 'node_modules/speedscope/dist/release')

let failures = 0, passes = 0
function check(ok, name, detail) {
  console.log(`${ok ? 'PASS' : 'FAIL'}: speedscope: ${name}`)
  if (ok) passes++
  else {
    failures++
    if (detail !== undefined) console.log('  ' + String(detail).slice(0, 2000))
  }
}

// ---- what the text says, parsed strictly by our own documented format ----
const HEADER = /^(\S.*?) +(\d+)\/(\d+) +\[(\d{3})\] +(\d+\.\d{6}): +(\d+) cpu-clock: $/
const FRAME = /^\t *([0-9a-f]+) (.+) \((\S*)\)$/

function parsePerfScript(text) {
  const samples = []
  let cur = null
  for (const line of text.split('\n')) {
    if (line === '') {
      cur = null
      continue
    }
    if (cur === null) {
      const m = HEADER.exec(line)
      if (!m) throw new Error(`not a sample header: ${JSON.stringify(line)}`)
      cur = {comm: m[1], pid: +m[2], tid: +m[3], time: parseFloat(m[5]), frames: []}
      samples.push(cur)
    } else {
      const m = FRAME.exec(line)
      if (!m) throw new Error(`not a frame line: ${JSON.stringify(line)}`)
      cur.frames.push({sym: m[2], dso: m[3]})
    }
  }
  return samples
}

// A frame as speedscope's perf importer names it: the symbol without the
// +0xOFF that perf appends, '[unknown]' shown as '??? (dso)'.
function frameKey(sym, dso) {
  const name = sym === '[unknown]' ? `??? (${dso})` : sym.replace(/\+0x[\da-f]+$/, '')
  return `${name}\u0001${dso}`
}

// speedscope weighs samples by time: a sample owns the span from the
// midpoint with its predecessor to the midpoint with its successor, per
// thread (one profile per "comm pid: P tid: T"); a lone sample weighs 1.
function expectedProfiles(samples) {
  const byThread = new Map()
  for (const s of samples) {
    const name = `${s.comm} pid: ${s.pid} tid: ${s.tid}`
    if (!byThread.has(name)) byThread.set(name, [])
    byThread.get(name).push(s)
  }
  const out = new Map()
  for (const [name, ss] of byThread) {
    const stacks = new Map()
    const n = ss.length
    for (let i = 0; i < n; i++) {
      let w = 1
      if (n > 1) {
        const lo = i === 0 ? ss[0].time : (ss[i - 1].time + ss[i].time) / 2
        const hi = i === n - 1 ? ss[n - 1].time : (ss[i].time + ss[i + 1].time) / 2
        w = hi - lo
      }
      if (w === 0) continue
      const key = ss[i].frames.map(f => frameKey(f.sym, f.dso)).reverse().join('\n')
      stacks.set(key, (stacks.get(key) || 0) + w)
    }
    const total = n > 1 ? ss[n - 1].time - ss[0].time : 1
    out.set(name, {samples: n, total, stacks})
  }
  return out
}

// Self time per root-first stack, replayed from an evented profile's events.
function exportedStacks(profile, frames) {
  const stacks = new Map()
  const open = []
  let at = profile.startValue
  for (const ev of profile.events) {
    if (open.length && ev.at > at) {
      const key = open.map(i => `${frames[i].name}\u0001${frames[i].file}`).join('\n')
      stacks.set(key, (stacks.get(key) || 0) + (ev.at - at))
    }
    at = ev.at
    if (ev.type === 'O') open.push(ev.frame)
    else open.pop()
  }
  return stacks
}

function diffStacks(want, got) {
  const diffs = []
  for (const k of new Set([...want.keys(), ...got.keys()])) {
    const a = want.get(k) || 0, b = got.get(k) || 0
    if (Math.abs(a - b) > 1e-9) diffs.push(`${(a * 1e3).toFixed(3)} ms vs ${(b * 1e3).toFixed(3)} ms: ${k.split('\n').slice(-3).join(' <- ')}`)
  }
  return diffs
}

// ---- serving the app and driving Chromium ----
function serve(dir) {
  const types = {'.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png', '.woff2': 'font/woff2'}
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html'
    const file = path.join(dir, rel)
    if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, {'content-type': types[path.extname(file)] || 'application/octet-stream'})
    fs.createReadStream(file).pipe(res)
  })
  return new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(server)))
}

// Loads text as the file `name` through the landing page's file input and
// says how speedscope took it: loaded, an alert, its error view, or nothing.
async function load(browser, base, name, text) {
  const page = await browser.newPage({viewport: {width: 1400, height: 3000}})
  const logs = []
  page.on('console', m => logs.push(m.text()))
  let alerted = null
  page.on('dialog', d => {
    alerted = d.message()
    d.dismiss().catch(() => {})
  })
  await page.goto(`${base}/index.html`)
  await page.waitForSelector('input#file', {state: 'attached'})
  await page.setInputFiles('input#file', {name, mimeType: 'text/plain', buffer: Buffer.from(text)})
  let kind = 'nothing'
  for (let i = 0; i < 300 && kind === 'nothing'; i++) {
    await page.waitForTimeout(100)
    if (alerted !== null) kind = 'alert'
    else if ((await page.locator('text=Something went wrong').count()) > 0) kind = 'error'
    else if ((await page.title()).endsWith(' - speedscope')) kind = 'loaded'
  }
  return {page, kind, alerted, logs}
}

async function exportJSON(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Control+s')])
  return JSON.parse(fs.readFileSync(await download.path(), 'utf8'))
}

const text = fs.readFileSync(perfPath, 'utf8')
const samples = parsePerfScript(text)
const foldedTotal = fs.readFileSync(foldedPath, 'utf8').split('\n').filter(Boolean)
  .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0)
check(samples.length > 100 && samples.length === foldedTotal,
  `the recording has ${samples.length} samples, as many as treport --folded counts (${foldedTotal})`)
const want = expectedProfiles(samples)

const server = await serve(appDir)
const base = `http://127.0.0.1:${server.address().port}`
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  // speedscope needs WebGL: software GL through SwiftShader, no GPU.
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-quic',
    '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
try {
  const good = await load(browser, base, 'busy.perf', text)
  check(good.kind === 'loaded', 'busy.perf imported (format detected from content)',
    `${good.kind} ${good.alerted || ''} ${good.logs.slice(-5).join(' | ')}`)
  if (good.kind === 'loaded') {
    check(good.logs.some(l => l.includes('Importing from linux perf script output')),
      'imported by the linux perf script importer', good.logs.join(' | '))
    const json = await exportJSON(good.page)
    const got = new Map(json.profiles.map(p => [p.name, p]))
    check(got.size === want.size && [...want.keys()].every(k => got.has(k)),
      `one profile per thread: ${[...want.keys()].join(', ')}`, [...got.keys()].join(', '))
    for (const [name, w] of want) {
      const p = got.get(name)
      if (!p) continue
      check(p.unit === 'seconds' && Math.abs(p.endValue - p.startValue - w.total) < 1e-9,
        `${name}: total weight ${w.total.toFixed(6)} s (first to last of its ${w.samples} samples)`,
        `${p.unit} ${p.endValue - p.startValue}`)
      const stacks = exportedStacks(p, json.shared.frames)
      const diffs = diffStacks(w.stacks, stacks)
      check(diffs.length === 0,
        `${name}: all ${w.stacks.size} distinct stacks with their exact time weights`,
        diffs.slice(0, 5).join('\n  '))
    }
    const names = new Set(json.shared.frames.map(f => f.name))
    for (const fn of ['main', 'sort_work', 'recurse', 'cmp_ints'])
      check(names.has(fn), `frame ${fn} imported`)
    check([...names].some(n => /^qsort/.test(n)), 'a libc qsort frame imported')

    // What a person sees: the sandwich view's table of functions.
    await good.page.keyboard.press('3')
    await good.page.waitForSelector('table td[title]')
    const cells = await good.page.locator('table td[title]').allTextContents()
    const shown = ['main', 'recurse', 'cmp_ints'].filter(fn => cells.includes(fn))
    check(shown.length === 3 && cells.some(c => /^qsort/.test(c)),
      'sandwich view lists main, recurse, cmp_ints and qsort', cells.slice(0, 20).join(', '))
    await good.page.close()
  }

  // Broken variants must be refused, or the checks above could never fail.
  const noTime = text.replace(/^(\S.*?\[\d{3}\]) +\d+\.\d{6}:/gm, '$1')
  const r1 = await load(browser, base, 'notime.perf', noTime)
  check(r1.kind === 'alert' && /Unrecognized format/.test(r1.alerted),
    'headers without timestamps are refused (Unrecognized format)', `${r1.kind} ${r1.alerted}`)
  await r1.page.close()

  const blocks = text.split('\n\n').filter(b => b.trim())
  const reversed = blocks.reverse().join('\n\n') + '\n\n'
  const r2 = await load(browser, base, 'reversed.perf', reversed)
  check(r2.kind === 'error', 'samples out of time order are refused (error view)', `${r2.kind} ${r2.alerted || ''}`)
  await r2.page.close()
} finally {
  await browser.close()
  server.close()
}
console.log(`${passes} passed, ${failures} failed`)
process.exit(failures ? 1 : 0)
