(function () {
'use strict';
/* streamcheck HTML report: draws the timeline from the JSON in #sc-data (format: html.c).
 * Each row's events are sorted by start; em[] is the running maximum of their ends, so the
 * first event visible at time v0 is found by binary search, and cum[] (prefix sums of
 * durations) gives the busy time of any run of events in O(1). Events narrower than
 * MIN_BAR pixels are drawn as one aggregated bar per pixel column, so a frame costs
 * O(rows x pixel columns x log n) however many events there are. */
var data = JSON.parse(document.getElementById('sc-data').textContent);
var tl = document.getElementById('timeline');
var labelsEl = tl.querySelector('.tl-labels');
var wrap = tl.querySelector('.tl-canvas');
var canvas = wrap.querySelector('canvas');
var g = canvas.getContext('2d');
var tip = document.getElementById('tooltip');
var viewEl = document.getElementById('view-range');
var AXIS = 24, MIN_BAR = 3, MAX_CANVAS = 16000;
var names = data.names, descs = data.descs, procs = data.procs;
var SEV = {error: '#d62728', warning: '#f08c00', note: '#1f77b4'};
var KIND = ['kernel', 'copy', 'memset', 'call', 'NVTX range'];
var MIXED = {stream: '#4a6a96', thread: '#b03a3a', nvtx: 'rgba(148,103,189,0.55)'};

function shortName(i) { var n = names[i]; return n ? n[0] : '?'; }
function fullName(i) { var n = names[i]; return n ? n[1] : '?'; }

var color = descs.map(function (d) {
  switch (d[0]) {
  case 0: return 'hsl(' + Math.round((d[1] * 137.508) % 360) + ',55%,48%)';
  case 1: return d[3] === 1 ? '#2ca02c' : d[3] === 2 ? '#e377c2' : '#8c564b';
  case 2: return '#7f7f7f';
  case 3: return '#d62728';
  default: return 'rgba(148,103,189,0.55)';
  }
});

/* ---- rows ---- */
var labelEls = labelsEl.querySelectorAll('.row-label');
var rows = [], nEvents = 0, group = '';
data.rows.forEach(function (r, idx) {
  var n = r.t.length;
  var st = new Float64Array(n), en = new Float64Array(n), em = new Float64Array(n);
  var cum = new Float64Array(n + 1), e = new Int32Array(n);
  var t = 0, mx = -Infinity;
  for (var i = 0; i < n; i++) {
    t += r.t[i];
    var d = r.d[i];
    st[i] = t; en[i] = t + d;
    if (en[i] > mx) mx = en[i];
    em[i] = mx; cum[i + 1] = cum[i] + d; e[i] = r.e[i];
  }
  var el = labelEls[idx];
  var text = el ? el.textContent.replace(/\s+/g, ' ').trim() : r.ty;
  if (r.ty === 'device' || r.ty === 'process') group = text;
  rows.push({p: r.p, ty: r.ty, n: n, st: st, en: en, em: em, cum: cum, e: e,
             r: r.r || null, el: el, y: 0, h: 0, rects: [], name: text, group: group});
  nEvents += n;
  r.t = r.d = r.e = r.r = null;
});
data.rows = null;

/* "fit" shows what there is to see: the extent of the rows' events and the findings */
var lo = Infinity, hi = -Infinity;
rows.forEach(function (r) {
  if (r.n) { lo = Math.min(lo, r.st[0]); hi = Math.max(hi, r.em[r.n - 1]); }
});
procs.forEach(function (p) {
  p.findings.forEach(function (f) {
    f.inst.forEach(function (x) { lo = Math.min(lo, x[0]); hi = Math.max(hi, x[0] + x[1]); });
  });
});
if (!(hi > lo)) { lo = 0; hi = data.span > 0 ? data.span : 1000; }
var full0 = lo - (hi - lo) * 0.01, full1 = hi + (hi - lo) * 0.01;
var v0 = full0, v1 = full1;
var W = 0, H = 0, dpr = 1, band = null, hover = null, drag = null, queued = false;
var stats = {rows: rows.length, events: nEvents, drawnBars: 0, aggregated: 0,
             findings: 0, renderMs: 0};

function layout() {
  rows.forEach(function (r) {
    if (r.el) { r.y = r.el.offsetTop; r.h = r.el.offsetHeight; }
  });
  dpr = window.devicePixelRatio || 1;
  W = Math.max(100, wrap.clientWidth);
  H = Math.min(MAX_CANVAS, Math.max(AXIS + 10, labelsEl.offsetHeight));
  canvas.style.width = W + 'px';
  canvas.style.height = H + 'px';
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
}

/* ---- formatting ---- */
function sig(v) { return v < 9.995 ? v.toFixed(2) : v < 99.95 ? v.toFixed(1) : v.toFixed(0); }
function fmtD(ns) {
  if (ns < 0) return '-' + fmtD(-ns);
  if (ns < 1000) return Math.round(ns) + ' ns';
  if (ns < 999500) return sig(ns / 1e3) + ' us';
  if (ns < 999500000) return sig(ns / 1e6) + ' ms';
  return sig(ns / 1e9) + ' s';
}
function fmtT(ns) { return '+' + fmtD(ns); }
function unitOf(ns) {
  ns = Math.abs(ns);
  return ns >= 1e9 ? [1e9, 's'] : ns >= 1e6 ? [1e6, 'ms'] : ns >= 1e3 ? [1e3, 'us'] : [1, 'ns'];
}
function axisLabel(t, step, u) {
  var dec = Math.max(0, Math.ceil(Math.log10(u[0] / step) - 1e-9));
  return (t / u[0]).toFixed(Math.min(dec, 9)) + ' ' + u[1];
}

/* first index in [lo, hi) with a[i] >= x */
function lowerBound(a, x, lo, hi) {
  while (lo < hi) {
    var mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* ---- drawing ---- */
function drawAxis(s) {
  var raw = (v1 - v0) / Math.max(1, W / 110);
  var p = Math.pow(10, Math.floor(Math.log10(raw)));
  var m = raw / p;
  var step = Math.max(1, (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p);
  var u = unitOf(Math.max(Math.abs(v0), Math.abs(v1)));
  if (u[0] < step && step >= 1e9) u = [1e9, 's'];
  g.fillStyle = '#f7f7f7';
  g.fillRect(0, 0, W, AXIS);
  g.font = '11px sans-serif';
  g.textBaseline = 'middle';
  for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
    var x = Math.round((t - v0) * s) + 0.5;
    g.fillStyle = '#e4e4e4';
    g.fillRect(x, AXIS, 1, H - AXIS);
    g.fillStyle = '#999';
    g.fillRect(x, AXIS - 6, 1, 6);
    g.fillStyle = '#333';
    g.fillText(axisLabel(t, step, u), x + 3, AXIS / 2 - 1);
  }
  g.fillStyle = '#ccc';
  g.fillRect(0, AXIS - 1, W, 1);
}

function drawRow(r, s, labels) {
  var rects = r.rects = [];
  var n = r.n, st = r.st, en = r.en, em = r.em, cum = r.cum, e = r.e;
  if (!n) return 0;
  var y = r.y + 2, h = Math.max(2, r.h - 5), drawn = 0;
  var i = lowerBound(em, v0, 0, n);
  while (i < n) {
    var a = st[i];
    if (a > v1) break;
    var x0 = (a - v0) * s, x1 = (en[i] - v0) * s;
    if (x1 - x0 >= MIN_BAR) {
      var c0 = Math.max(x0, -2), c1 = Math.min(x1, W + 2);
      g.fillStyle = color[e[i]];
      g.fillRect(c0, y, c1 - c0 - (c1 - c0 > 6 ? 1 : 0), h);   /* a seam between neighbours */
      if (c1 - c0 > 36) labels.push([c0, c1, y, h, e[i]]);
      rects.push(x0, x1, i, i + 1);
      drawn++; i++;
      continue;
    }
    /* narrower than MIN_BAR: everything that starts in this pixel column becomes one bar */
    var col = Math.floor(x0);
    var j = lowerBound(st, v0 + (col + 1) / s, i + 1, n);
    if (j === i + 1) {
      g.fillStyle = color[e[i]];
      g.fillRect(x0, y, Math.max(1, x1 - x0), h);
      rects.push(x0, Math.max(x0 + 1, x1), i, j);
      drawn++; i = j;
      continue;
    }
    /* the group's latest end: the running maximum when it grew inside the group */
    var end = (i === 0 || em[j - 1] > em[i - 1]) ? em[j - 1] : en[j - 1];
    var xe = Math.max(col + 1, Math.min((end - v0) * s, W + 2));
    var busy = Math.min(1, (cum[j] - cum[i]) * s / (xe - col));
    var mid = e[(i + j) >>> 1];
    g.globalAlpha = 0.3 + 0.7 * busy;
    /* one kind of event keeps its colour; a mix (by a 3-point sample) is drawn neutral */
    g.fillStyle = e[i] === mid && e[j - 1] === mid ? color[mid] : MIXED[r.ty] || MIXED.stream;
    g.fillRect(col, y, xe - col, h);
    g.globalAlpha = 1;
    rects.push(col, xe, i, j);
    drawn++; stats.aggregated++; i = j;
  }
  return drawn;
}

function drawFindings(r, s) {
  var rects = r.rects = [], count = 0;
  procs[r.p].findings.forEach(function (f, fi) {
    f.inst.forEach(function (inst, ii) {
      var x0 = (inst[0] - v0) * s, x1 = (inst[0] + inst[1] - v0) * s;
      if (x1 < -8 || x0 > W + 8) return;
      g.fillStyle = SEV[f.sev] || '#555';
      g.fillRect(x0, r.y + r.h - 5, Math.max(2, x1 - x0), 3);
      g.beginPath();
      g.moveTo(x0 - 6, r.y + 2);
      g.lineTo(x0 + 6, r.y + 2);
      g.lineTo(x0, r.y + r.h - 4);
      g.closePath();
      g.fill();
      rects.push(x0 - 7, Math.max(x1, x0 + 7), fi, ii);
      count++;
    });
  });
  return count;
}

function drawLabels(labels) {
  g.font = '11px sans-serif';
  g.textBaseline = 'middle';
  labels.forEach(function (l) {
    var d = descs[l[4]], w = l[1] - l[0] - 6, text = shortName(d[1]);
    var max = Math.floor(w / 6.2);
    if (max < 3) return;
    if (text.length > max) text = text.slice(0, max - 1) + '\u2026';
    g.fillStyle = d[0] === 4 ? '#222' : '#fff';
    g.fillText(text, l[0] + 3, l[2] + l[3] / 2);
  });
}

function draw() {
  queued = false;
  var t0 = performance.now();
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, W, H);
  var s = W / (v1 - v0);
  stats.aggregated = 0;
  rows.forEach(function (r, k) {
    if (r.y > H) return;
    g.fillStyle = r.ty === 'process' ? '#e3e7ee' : r.ty === 'device' ? '#f0f2f6'
                : (k % 2 ? '#fbfbfb' : '#fff');
    g.fillRect(0, r.y, W, r.h);
  });
  drawAxis(s);
  if (band) {
    var bx0 = (band[0] - v0) * s, bx1 = (band[1] - v0) * s;
    g.fillStyle = band[2];
    g.fillRect(bx0, AXIS, Math.max(2, bx1 - bx0), H - AXIS);
  }
  var drawn = 0, marks = 0, labels = [];
  rows.forEach(function (r) {
    if (r.y > H) return;
    if (r.ty === 'findings') marks += drawFindings(r, s);
    else if (r.n) drawn += drawRow(r, s, labels);
  });
  drawLabels(labels);
  stats.drawnBars = drawn;
  stats.findings = marks;
  stats.renderMs = Math.round((performance.now() - t0) * 10) / 10;
  stats.view = [v0, v1, W];
  window.scReport = stats;
  tl.setAttribute('data-rows', stats.rows);
  tl.setAttribute('data-events', stats.events);
  tl.setAttribute('data-drawn-bars', stats.drawnBars);
  tl.setAttribute('data-aggregated', stats.aggregated);
  tl.setAttribute('data-findings', stats.findings);
  tl.setAttribute('data-render-ms', stats.renderMs);
  if (viewEl) viewEl.textContent = 'view ' + fmtT(Math.max(0, v0)) + ' to ' + fmtT(v1) +
                                   ' (' + fmtD(v1 - v0) + ')';
}

function schedule() {
  if (!queued) { queued = true; window.requestAnimationFrame(draw); }
}

/* ---- view ---- */
function setView(a, b) {
  var min = 20, fullSpan = full1 - full0;
  if (b - a < min) { var c = (a + b) / 2; a = c - min / 2; b = c + min / 2; }
  if (b - a > fullSpan) { a = full0; b = full1; }
  if (a < full0) { b += full0 - a; a = full0; }
  if (b > full1) { a -= b - full1; b = full1; }
  v0 = a; v1 = b;
  stats.view = [v0, v1, W];
  schedule();
}
function zoomAt(x, factor) {
  var t = v0 + x * (v1 - v0) / W;
  setView(t - (t - v0) * factor, t + (v1 - t) * factor);
}
function pan(px) {
  var d = px * (v1 - v0) / W;
  setView(v0 + d, v1 + d);
}
function zoomTo(a, b) {
  var pad = Math.max((b - a) * 0.5, (full1 - full0) * 0.002, 500);
  setView(a - pad, b + pad);
}

/* ---- hover ---- */
function rowAt(y) {
  for (var k = 0; k < rows.length; k++)
    if (y >= rows[k].y && y < rows[k].y + rows[k].h) return rows[k];
  return null;
}
function hitAt(r, x) {
  var R = r.rects, best = -1, bestD = Infinity;
  for (var k = 0; k < R.length; k += 4) {
    if (x < R[k] - 1 || x > R[k + 1] + 1) continue;
    var d = r.ty === 'findings' ? Math.abs(x - R[k] - 7) : 0;
    if (d <= bestD) { best = k; bestD = d; }
  }
  return best < 0 ? null : [R[best + 2], R[best + 3]];
}

function line(cls, text) {
  var div = document.createElement('div');
  if (cls) div.className = cls;
  div.textContent = text;
  tip.appendChild(div);
}

function rangeLines(r, i) {
  var m = r.r && r.r[i] ? procs[r.p].rm[r.r[i] - 1] : null;
  if (!m) { line('dim', 'no per-range metrics'); return; }
  line('', 'device work issued inside: ' + m[1] + ' kernels, busy ' + fmtD(m[2]) +
       ', concurrency ' + m[3].toFixed(2) + 'x, speedup ' + m[4].toFixed(2) + 'x');
  line('', 'copies ' + fmtD(m[5]) + ' (' + fmtD(m[6]) + ' beside kernels), idle ' + fmtD(m[7]));
  if (m[8]) line('', 'findings: ' + m[8]);
}

function eventTip(r, i) {
  var d = descs[r.e[i]], full = fullName(d[1]), short = shortName(d[1]);
  line('b', short);
  if (full !== short) line('mono', full);
  line('', KIND[d[0]] + ': ' + d[2]);
  if (d[0] !== 3 && d[0] !== 4) line('', r.name + (r.group ? ' \u00b7 ' + r.group : ''));
  else line('', r.name);
  var dur = r.en[i] - r.st[i];
  line('', 'start ' + fmtT(r.st[i]) + ', ' + (d[0] === 3 ? 'host blocked ' : d[0] === 4 ?
       'wall ' : 'duration ') + fmtD(dur));
  if (d[0] === 4) {
    rangeLines(r, i);
    band = [r.st[i], r.en[i], 'rgba(148,103,189,0.12)'];
  }
}

function groupTip(r, i, j) {
  line('b', (j - i) + ' ' + (r.ty === 'stream' ? 'operations' : r.ty === 'thread' ? 'calls'
       : 'ranges') + ' here: zoom in to see them one by one');
  line('', r.name + (r.group && r.ty === 'stream' ? ' \u00b7 ' + r.group : ''));
  var end = 0;
  if (j - i <= 100000) for (var k = i; k < j; k++) end = Math.max(end, r.en[k]);
  line('', 'from ' + fmtT(r.st[i]) + (end ? ' to ' + fmtT(end) : '') + ', ' +
       fmtD(r.cum[j] - r.cum[i]) + ' summed');
  if (j - i <= 20000) {
    var counts = {};
    for (k = i; k < j; k++) { var nm = shortName(descs[r.e[k]][1]); counts[nm] = (counts[nm] || 0) + 1; }
    var top = Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a]; });
    line('dim', top.slice(0, 4).map(function (nm) { return nm + ' x' + counts[nm]; }).join(', ') +
         (top.length > 4 ? ', ...' : ''));
  }
}

function findingTip(r, fi, ii) {
  var f = procs[r.p].findings[fi], inst = f.inst[ii];
  line('sev-' + f.sev, f.sev + ' \u00b7 ' + f.rule);
  line('b', f.title);
  line('', inst[4] + ' instance at ' + fmtT(inst[0]) + ': ' + inst[3]);
  line('', 'cost here ' + fmtD(inst[2]) + '; in all ' + fmtD(f.cost) + ' (' +
       (f.share * 100).toFixed(1) + '% of the run) over ' + f.count + ' occurrence' +
       (f.count === 1 ? '' : 's'));
  line('', 'fix: ' + f.fix);
  line('mono', 'site: ' + f.site);
  band = [inst[0], inst[0] + inst[1], f.sev === 'error' ? 'rgba(214,39,40,0.12)'
          : f.sev === 'warning' ? 'rgba(240,140,0,0.12)' : 'rgba(31,119,180,0.12)'];
}

function showTip(ev) {
  var box = canvas.getBoundingClientRect();
  var x = ev.clientX - box.left, y = ev.clientY - box.top;
  var r = rowAt(y), hit = r ? hitAt(r, x) : null;
  var key = hit ? rows.indexOf(r) + ':' + hit[0] + ':' + hit[1] : null;
  if (key !== hover) {
    hover = key;
    var hadBand = band !== null;
    band = null;
    tip.textContent = '';
    if (hit) {
      if (r.ty === 'findings') findingTip(r, hit[0], hit[1]);
      else if (hit[1] - hit[0] === 1) eventTip(r, hit[0]);
      else groupTip(r, hit[0], hit[1]);
    }
    if (hadBand || band) schedule();
  }
  tip.hidden = !hit;
  if (hit) {
    var tx = ev.clientX + 14, ty = ev.clientY + 14;
    if (tx + tip.offsetWidth > window.innerWidth - 4) tx = Math.max(4, ev.clientX - tip.offsetWidth - 14);
    if (ty + tip.offsetHeight > window.innerHeight - 4) ty = Math.max(4, ev.clientY - tip.offsetHeight - 14);
    tip.style.left = tx + 'px';
    tip.style.top = ty + 'px';
  }
}

function hideTip() {
  tip.hidden = true;
  if (band) { band = null; schedule(); }
  hover = null;
}

/* ---- input ---- */
canvas.addEventListener('wheel', function (ev) {
  ev.preventDefault();
  var box = canvas.getBoundingClientRect();
  var dy = ev.deltaMode === 1 ? ev.deltaY * 20 : ev.deltaY;
  var dx = ev.deltaMode === 1 ? ev.deltaX * 20 : ev.deltaX;
  if (ev.shiftKey || Math.abs(dx) > Math.abs(dy)) pan(dx || dy);
  else zoomAt(ev.clientX - box.left, Math.exp(dy * 0.002));
}, {passive: false});

canvas.addEventListener('mousedown', function (ev) {
  if (ev.button !== 0) return;
  drag = {x: ev.clientX, v0: v0, v1: v1};
  canvas.style.cursor = 'grabbing';
  ev.preventDefault();
});
window.addEventListener('mousemove', function (ev) {
  if (drag) {
    var d = (drag.x - ev.clientX) * (drag.v1 - drag.v0) / W;
    v0 = drag.v0; v1 = drag.v1;
    setView(drag.v0 + d, drag.v1 + d);
    tip.hidden = true;
  } else if (ev.target === canvas) {
    showTip(ev);
  }
});
window.addEventListener('mouseup', function () {
  if (drag) { drag = null; canvas.style.cursor = ''; }
});
canvas.addEventListener('mouseleave', function () { if (!drag) hideTip(); });
canvas.addEventListener('dblclick', function (ev) {
  var box = canvas.getBoundingClientRect();
  var r = rowAt(ev.clientY - box.top), hit = r ? hitAt(r, ev.clientX - box.left) : null;
  if (!hit) { zoomAt(ev.clientX - box.left, 0.5); return; }
  if (r.ty === 'findings') {
    var inst = procs[r.p].findings[hit[0]].inst[hit[1]];
    zoomTo(inst[0], inst[0] + inst[1]);
  } else {
    var end = 0;
    for (var k = hit[0]; k < hit[1] && k < hit[0] + 100000; k++) end = Math.max(end, r.en[k]);
    zoomTo(r.st[hit[0]], end);
  }
});

function key(ev) {
  if (ev.target && /^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName)) return;
  var k = ev.key;
  if (k === '+' || k === '=' || k === 'w') zoomAt(W / 2, 0.5);
  else if (k === '-' || k === '_' || k === 's') zoomAt(W / 2, 2);
  else if (k === '0' || k === 'f') setView(full0, full1);
  else if (k === 'ArrowLeft' || k === 'a') pan(-W * 0.2);
  else if (k === 'ArrowRight' || k === 'd') pan(W * 0.2);
  else return;
  ev.preventDefault();
}
document.addEventListener('keydown', key);

function button(id, fn) {
  var b = document.getElementById(id);
  if (b) b.addEventListener('click', fn);
}
button('zoom-in', function () { zoomAt(W / 2, 0.5); });
button('zoom-out', function () { zoomAt(W / 2, 2); });
button('zoom-fit', function () { setView(full0, full1); });

Array.prototype.forEach.call(document.querySelectorAll('#findings tr.finding'), function (tr) {
  tr.addEventListener('click', function () {
    var p = procs[+tr.getAttribute('data-p')];
    var f = p && p.findings[+tr.getAttribute('data-f')];
    if (!f || !f.inst.length) return;
    var inst = f.inst[f.inst.length - 1];
    zoomTo(inst[0], inst[0] + inst[1]);
    tl.scrollIntoView({block: 'nearest'});
  });
});

window.addEventListener('resize', function () { layout(); schedule(); });

layout();
draw();   /* the first frame synchronously, so the numbers are in the DOM at load */
})();
