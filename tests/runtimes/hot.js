// A Node workload with a known hot leaf and caller chain, for
// tests/runtimes (chain_share.py): node::Start -> ... -> run ->
// hotMain -> hotOuter -> hotMiddle -> hotLeaf. hotLeaf takes nearly all
// the CPU.
//   usage: node [--perf-basic-prof] hot.js [SECONDS (2.5)]
//
// Every hot* function is called many times so TurboFan compiles each one
// as a whole function; run, called once, stays interpreted (without
// --interpreted-frames-native-stack its frame is only
// Builtins_InterpreterEntryTrampoline, so it is not in the chain). hotLeaf is
// kept out of hotMiddle by size: its bytecode is well above TurboFan's
// inlining limit (max_inlined_bytecode_size, 460 bytes); hotMiddle and
// hotOuter likewise, so every link of the chain stays a real frame.
'use strict';

const secs = Number(process.argv[2] || 2.5);
// The pid names the runtime's /tmp/perf-PID.map for the tests.
console.log('hot.js: pid %d', process.pid);

function hotLeaf(seed) {
  let a = seed | 0, b = (seed * 7) | 0, c = (seed ^ 0x5bd1e995) | 0, d = 1;
  for (let i = 0; i < 2000; i++) {
    a = (a + Math.imul(b, 0x9e3779b1)) | 0; b = (b ^ (a >>> 15)) | 0;
    c = (c + Math.imul(a, 0x85ebca6b)) | 0; d = (d ^ (c >>> 13)) | 0;
    a = (a + Math.imul(d, 0xc2b2ae35)) | 0; b = (b + (a << 3)) | 0;
    c = (c ^ (b >>> 7)) | 0; d = (d + Math.imul(c, 0x27d4eb2f)) | 0;
    if ((a & 0xffff) === 0x1234) { b = (b + 1) | 0; c = (c - 1) | 0; }
    if ((b & 0xffff) === 0x4321) { c = (c + 3) | 0; d = (d - 3) | 0; }
    if ((c & 0xffff) === 0x2468) { d = (d + 5) | 0; a = (a - 5) | 0; }
    if ((d & 0xffff) === 0x8642) { a = (a + 7) | 0; b = (b - 7) | 0; }
    a = (a ^ (d << 5)) | 0; b = (b + Math.imul(c, 0x165667b1)) | 0;
    c = (c + (d >>> 11)) | 0; d = (d ^ Math.imul(a, 0x61c88647)) | 0;
    a = (a + (b >>> 17)) | 0; b = (b ^ (c << 9)) | 0;
    c = (c ^ Math.imul(d, 0x7feb352d)) | 0; d = (d + (a >>> 3)) | 0;
    a = (a + Math.imul(c, 0x846ca68b)) | 0; b = (b ^ (d >>> 19)) | 0;
    c = (c + (a << 11)) | 0; d = (d ^ Math.imul(b, 0x2c1b3c6d)) | 0;
    a = (a ^ (c >>> 23)) | 0; b = (b + Math.imul(a, 0x297a2d39)) | 0;
    c = (c + (b >>> 2)) | 0; d = (d + (c << 13)) | 0;
  }
  return (a ^ b ^ c ^ d) | 0;
}

function hotMiddle(seed) {
  let acc = 0, x = seed | 0, y = (seed + 1) | 0, z = (seed * 3) | 0;
  for (let i = 0; i < 4; i++) {
    acc = (acc + hotLeaf(x + i)) | 0;
    x = (x ^ (acc >>> 3)) | 0; y = (y + Math.imul(x, 0x9e3779b1)) | 0;
    z = (z ^ (y << 7)) | 0; x = (x + (z >>> 5)) | 0;
    y = (y ^ Math.imul(z, 0x85ebca6b)) | 0; z = (z + (x << 1)) | 0;
    x = (x + Math.imul(y, 0xc2b2ae35)) | 0; y = (y ^ (z >>> 9)) | 0;
    z = (z + Math.imul(x, 0x27d4eb2f)) | 0; x = (x ^ (y << 3)) | 0;
    y = (y + (z >>> 13)) | 0; z = (z ^ Math.imul(y, 0x165667b1)) | 0;
    x = (x + (z << 15)) | 0; y = (y ^ (x >>> 1)) | 0;
    z = (z + Math.imul(y, 0x61c88647)) | 0; x = (x ^ (z >>> 21)) | 0;
    y = (y + Math.imul(x, 0x7feb352d)) | 0; z = (z ^ (y << 2)) | 0;
    x = (x + (y >>> 4)) | 0; y = (y ^ Math.imul(z, 0x846ca68b)) | 0;
    z = (z + (x << 6)) | 0; x = (x ^ Math.imul(y, 0x2c1b3c6d)) | 0;
    y = (y + (x >>> 8)) | 0; z = (z ^ Math.imul(x, 0x297a2d39)) | 0;
    x = (x + (z << 10)) | 0; y = (y ^ (z >>> 12)) | 0;
    z = (z + Math.imul(y, 0x9e3779b9)) | 0; x = (x ^ (y << 14)) | 0;
    y = (y + (x >>> 16)) | 0; z = (z ^ Math.imul(x, 0x85ebca77)) | 0;
  }
  return (acc ^ x ^ y ^ z) | 0;
}

function hotOuter(seed) {
  let acc = 0, p = seed | 0, q = (seed ^ 0x1234) | 0, r = (seed + 99) | 0;
  for (let i = 0; i < 4; i++) {
    acc = (acc ^ hotMiddle(p + i)) | 0;
    p = (p + (acc >>> 3)) | 0; q = (q ^ Math.imul(p, 0x9e3779b1)) | 0;
    r = (r + (q << 7)) | 0; p = (p ^ (r >>> 5)) | 0;
    q = (q + Math.imul(r, 0x85ebca6b)) | 0; r = (r ^ (p << 1)) | 0;
    p = (p + Math.imul(q, 0xc2b2ae35)) | 0; q = (q ^ (r >>> 9)) | 0;
    r = (r + Math.imul(p, 0x27d4eb2f)) | 0; p = (p ^ (q << 3)) | 0;
    q = (q + (r >>> 13)) | 0; r = (r ^ Math.imul(q, 0x165667b1)) | 0;
    p = (p + (r << 15)) | 0; q = (q ^ (p >>> 1)) | 0;
    r = (r + Math.imul(q, 0x61c88647)) | 0; p = (p ^ (r >>> 21)) | 0;
    q = (q + Math.imul(p, 0x7feb352d)) | 0; r = (r ^ (q << 2)) | 0;
    p = (p + (q >>> 4)) | 0; q = (q ^ Math.imul(r, 0x846ca68b)) | 0;
    r = (r + (p << 6)) | 0; p = (p ^ Math.imul(q, 0x2c1b3c6d)) | 0;
    q = (q + (p >>> 8)) | 0; r = (r ^ Math.imul(p, 0x297a2d39)) | 0;
    p = (p + (r << 10)) | 0; q = (q ^ (r >>> 12)) | 0;
    r = (r + Math.imul(q, 0x9e3779b9)) | 0; p = (p ^ (q << 14)) | 0;
    q = (q + (p >>> 16)) | 0; r = (r ^ Math.imul(p, 0x85ebca77)) | 0;
  }
  return (acc ^ p ^ q ^ r) | 0;
}

function hotMain(seed) {
  let acc = 0, p = seed | 0, q = (seed ^ 0x1234) | 0, r = (seed + 99) | 0;
  for (let i = 0; i < 2; i++) {
    acc = (acc ^ hotOuter(p + i)) | 0;
    p = (p + (acc >>> 3)) | 0; q = (q ^ Math.imul(p, 0x9e3779b1)) | 0;
    r = (r + (q << 7)) | 0; p = (p ^ (r >>> 5)) | 0;
    q = (q + Math.imul(r, 0x85ebca6b)) | 0; r = (r ^ (p << 1)) | 0;
    p = (p + Math.imul(q, 0xc2b2ae35)) | 0; q = (q ^ (r >>> 9)) | 0;
    r = (r + Math.imul(p, 0x27d4eb2f)) | 0; p = (p ^ (q << 3)) | 0;
    q = (q + (r >>> 13)) | 0; r = (r ^ Math.imul(q, 0x165667b1)) | 0;
    p = (p + (r << 15)) | 0; q = (q ^ (p >>> 1)) | 0;
    r = (r + Math.imul(q, 0x61c88647)) | 0; p = (p ^ (r >>> 21)) | 0;
    q = (q + Math.imul(p, 0x7feb352d)) | 0; r = (r ^ (q << 2)) | 0;
    p = (p + (q >>> 4)) | 0; q = (q ^ Math.imul(r, 0x846ca68b)) | 0;
    r = (r + (p << 6)) | 0; p = (p ^ Math.imul(q, 0x2c1b3c6d)) | 0;
    q = (q + (p >>> 8)) | 0; r = (r ^ Math.imul(p, 0x297a2d39)) | 0;
    p = (p + (r << 10)) | 0; q = (q ^ (r >>> 12)) | 0;
    r = (r + Math.imul(q, 0x9e3779b9)) | 0; p = (p ^ (q << 14)) | 0;
    q = (q + (p >>> 16)) | 0; r = (r ^ Math.imul(p, 0x85ebca77)) | 0;
  }
  return (acc ^ p ^ q ^ r) | 0;
}

function run() {
  const end = Date.now() + secs * 1000;
  let acc = 0, n = 0;
  while (Date.now() < end) {
    acc = (acc + hotMain(n)) | 0;
    n++;
  }
  return [acc, n];
}

const [acc, n] = run();
console.log('hot.js: %d rounds, checksum %d', n, acc);
