/* thoughtgraph trace viewer: draws the laid-out graph of thoughts and shows a clicked thought.
   Every string from the trace is put in the page with textContent, never as HTML. */
(function () {
  "use strict";
  var t0 = performance.now();
  var DATA = JSON.parse(document.getElementById("trace-data").textContent || "{}");
  var SVGNS = "http://www.w3.org/2000/svg";
  var NODE_W = 132, NODE_H = 40, SLOT = 150, LEVEL_H = 100, PAD = 40;

  var summary = DATA.summary || {};
  var nodes = Array.isArray(DATA.nodes) ? DATA.nodes : [];
  var calls = DATA.calls || {};
  var ops = Array.isArray(DATA.ops) ? DATA.ops : [];
  var byId = new Map();
  var edges = [];
  var selected = null;

  // ---- small DOM helpers (text only) ---------------------------------------------------
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function sv(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function show(value) {
    if (value === undefined || value === null || value === "") return "\u2014";
    if (typeof value === "number") return Number.isInteger(value) ? value.toLocaleString("en") : String(+value.toFixed(4));
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (typeof value === "object") return JSON.stringify(value);
    return String(value);
  }
  function money(value) {  // as spend.budget.dollars: 4 decimals, a smaller cost to 2 significant digits
    if (typeof value !== "number") return show(value);
    const rounded = Number(value.toPrecision(2));  // its two digits ($0.0000999 is $0.0001)
    if (!value || !isFinite(value) || Math.abs(rounded) >= 0.0001) return "$" + value.toFixed(4);
    return "$" + rounded.toFixed(Math.min(100, 1 - Math.floor(Math.log10(Math.abs(rounded)))));
  }
  function seconds(value) { return typeof value === "number" ? value.toFixed(3) + " s" : "\u2014"; }
  function pretty(value) {
    if (value === undefined || value === null) return "(none)";
    if (typeof value === "string") return value;
    var flat = Array.isArray(value) && value.every(function (v) { return v === null || typeof v !== "object"; });
    try { return flat ? "[" + value.map(function (v) { return JSON.stringify(v); }).join(", ") + "]" : JSON.stringify(value, null, 1); }
    catch (e) { return String(value); }
  }
  function short(text, n) { text = String(text); return text.length > n ? text.slice(0, n - 1) + "\u2026" : text; }
  function idButton(id) {
    var b = el("button", "link", id);
    b.type = "button";
    b.addEventListener("click", function () { select(id, true); });
    return b;
  }

  // ---- model ---------------------------------------------------------------------------
  function state(n) {
    if (n.score === null || n.score === undefined) return "unscored";
    return Number(n.score) === 0 && !(n.errors && n.errors.length) && n.valid !== false ? "clean" : "errors";
  }
  function scoreText(n) {
    if (n.score === null || n.score === undefined) return "unscored";
    var errors = Number(n.score);
    if (errors === 0 && state(n) === "clean") return "clean";
    return isFinite(errors) ? show(errors) + (errors === 1 ? " error" : " errors") : "unparsed";
  }
  nodes.forEach(function (n, i) {
    n.i = i; n.children = []; n.next = []; n.edgeEls = [];
    n.parents = Array.isArray(n.parents) ? n.parents : [];
    n.errors = Array.isArray(n.errors) ? n.errors : [];
    n.level = typeof n.level === "number" ? n.level : 0;
    n.x = typeof n.x === "number" ? n.x : i;
    byId.set(String(n.id), n);
  });
  nodes.forEach(function (n) {
    n.parents.forEach(function (p) {
      var from = byId.get(p);
      if (from) { edges.push({ from: from, to: n, attempt: false }); from.children.push(n); }
    });
    var prev = n.prev !== null && n.prev !== undefined ? byId.get(n.prev) : null;
    if (prev) { edges.push({ from: prev, to: n, attempt: true }); prev.next.push(n); }
  });

  // ---- drawing -------------------------------------------------------------------------
  var minX = Infinity, maxX = -Infinity, maxLevel = 0;
  nodes.forEach(function (n) {
    minX = Math.min(minX, n.x); maxX = Math.max(maxX, n.x); maxLevel = Math.max(maxLevel, n.level);
  });
  if (!nodes.length) { minX = 0; maxX = 0; }
  function px(n) { return PAD + (n.x - minX) * SLOT; }
  function py(n) { return PAD + n.level * LEVEL_H; }
  var graphW = PAD * 2 + (maxX - minX) * SLOT + NODE_W, graphH = PAD * 2 + maxLevel * LEVEL_H + NODE_H;

  function drawEdges(layer) {
    var frag = document.createDocumentFragment();
    edges.forEach(function (e) {
      var x1 = px(e.from) + NODE_W / 2, y1 = py(e.from) + NODE_H;
      var x2 = px(e.to) + NODE_W / 2, y2 = py(e.to) - 2;
      var mid = (y2 - y1) / 2;
      var path = sv("path", {
        d: "M" + x1 + "," + y1 + " C" + x1 + "," + (y1 + mid) + " " + x2 + "," + (y2 - mid) + " " + x2 + "," + y2,
        "class": "edge" + (e.attempt ? " attempt" : ""), "marker-end": "url(#arrow)"
      });
      e.path = path;
      e.from.edgeEls.push(e); e.to.edgeEls.push(e);
      frag.appendChild(path);
    });
    layer.appendChild(frag);
  }
  function drawNodes(layer) {
    var frag = document.createDocumentFragment();
    nodes.forEach(function (n) {
      var cls = "node " + state(n) + (n.kept === false ? " discarded" : "") + (n.id === summary.final_thought ? " final" : "") + (n.grown_by ? " grown" : "");
      var g = sv("g", { "class": cls, transform: "translate(" + px(n) + "," + py(n) + ")", "data-i": n.i, "data-id": n.id });
      if (n.grown_by) g.appendChild(sv("rect", { "class": "grown-mark", x: -4, y: -4, width: NODE_W + 8, height: NODE_H + 8, rx: 9 }));
      g.appendChild(sv("rect", { width: NODE_W, height: NODE_H, rx: 7 }));
      var label = sv("text", { x: 8, y: 16 });
      label.textContent = short(n.id, 19);
      var sub = sv("text", { x: 8, y: 32, "class": "sub" });
      sub.textContent = short(n.kind + " \u00b7 " + scoreText(n), 24);
      var tip = sv("title", {});
      tip.textContent = n.id + " (" + scoreText(n) + (n.kept === false ? ", discarded attempt" : "") + (n.grown_by ? ", grown at run time by " + n.grown_by : "") + ")";
      g.appendChild(label); g.appendChild(sub); g.appendChild(tip);
      n.g = g;
      frag.appendChild(g);
    });
    layer.appendChild(frag);
  }

  // ---- pan and zoom: the viewBox keeps the element's aspect ratio, so scale = units/pixel --
  var svgEl = document.getElementById("graph");
  var view = { x: 0, y: 0, scale: 1 };
  var FAR = 2.2;  // units per pixel beyond which labels are unreadable: hide them (and arrows)
  function size() { return { w: svgEl.clientWidth || 800, h: svgEl.clientHeight || 600 }; }
  function applyView() {
    var s = size();
    svgEl.setAttribute("viewBox", view.x + " " + view.y + " " + s.w * view.scale + " " + s.h * view.scale);
    svgEl.classList.toggle("far", view.scale > FAR);
    drawMinimap();
  }
  function fit() {
    // The whole graph when it fits readably; a wide run (hundreds of parts) fits its height
    // instead, centred on the final thought: the minimap shows the rest.
    var s = size(), whole = Math.max(graphW / s.w, graphH / s.h);
    view.scale = Math.max(Math.min(whole, Math.max(graphH / s.h, 1)), 0.8);
    var final = byId.get(summary.final_thought);
    var cx = graphW <= s.w * view.scale || !final ? graphW / 2 : px(final) + NODE_W / 2;
    view.x = cx - (s.w * view.scale) / 2;
    view.y = (graphH - s.h * view.scale) / 2;
    applyView();
  }
  function fitAll() {
    var s = size();
    view.scale = Math.max(graphW / s.w, graphH / s.h, 0.8);
    view.x = (graphW - s.w * view.scale) / 2;
    view.y = (graphH - s.h * view.scale) / 2;
    applyView();
  }
  function centerOn(n) {
    var s = size();
    view.scale = Math.min(view.scale, 1.25);
    view.x = px(n) + NODE_W / 2 - (s.w * view.scale) / 2;
    view.y = py(n) + NODE_H / 2 - (s.h * view.scale) / 2;
    applyView();
  }

  // ---- minimap: every thought as a dot, the visible part as a frame; click or drag to move --
  var mini = document.getElementById("minimap");
  var miniDots = null;
  function miniScale() { return { x: mini.width / graphW, y: mini.height / graphH }; }
  function drawMinimap() {
    var s = size();
    var needed = graphW > s.w * 1.6 || graphH > s.h * 1.6;
    mini.hidden = !needed;
    if (!needed || !mini.getContext) return;
    var ctx = mini.getContext("2d");
    var k = miniScale();
    if (!miniDots) {
      miniDots = document.createElement("canvas");
      miniDots.width = mini.width; miniDots.height = mini.height;
      var dc = miniDots.getContext("2d");
      var colours = { unscored: "#3b82c4", clean: "#2e9a48", errors: "#d2432f" };
      nodes.forEach(function (n) {
        dc.globalAlpha = n.kept === false ? 0.35 : 1;
        dc.fillStyle = colours[state(n)];
        dc.fillRect(px(n) * k.x, py(n) * k.y, Math.max(NODE_W * k.x, 1.5), Math.max(NODE_H * k.y, 2));
      });
    }
    ctx.clearRect(0, 0, mini.width, mini.height);
    ctx.drawImage(miniDots, 0, 0);
    ctx.strokeStyle = "#f2a900"; ctx.lineWidth = 2;
    ctx.strokeRect(view.x * k.x, view.y * k.y, Math.max(s.w * view.scale * k.x, 3), Math.max(s.h * view.scale * k.y, 3));
  }
  function miniMove(ev) {
    var r = mini.getBoundingClientRect(), k = miniScale(), s = size();
    view.x = (ev.clientX - r.left) * (mini.width / r.width) / k.x - (s.w * view.scale) / 2;
    view.y = (ev.clientY - r.top) * (mini.height / r.height) / k.y - (s.h * view.scale) / 2;
    applyView();
  }
  var miniDrag = false;
  mini.addEventListener("pointerdown", function (ev) { miniDrag = true; miniMove(ev); ev.stopPropagation(); });
  window.addEventListener("pointermove", function (ev) { if (miniDrag) miniMove(ev); });
  window.addEventListener("pointerup", function () { miniDrag = false; });
  (function sizeMinimap() {
    var w = 280, h = Math.round(Math.min(140, Math.max(60, (w * graphH) / Math.max(graphW, 1))));
    mini.width = w; mini.height = h;
  })();

  function toGraph(clientX, clientY) {
    var r = svgEl.getBoundingClientRect();
    return { x: view.x + (clientX - r.left) * view.scale, y: view.y + (clientY - r.top) * view.scale };
  }
  svgEl.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var p = toGraph(ev.clientX, ev.clientY);
    var factor = Math.exp(Math.max(-1, Math.min(1, ev.deltaY * 0.0015)));
    var next = Math.min(Math.max(view.scale * factor, 0.05), Math.max(graphW, graphH) / 100);
    view.x = p.x - (p.x - view.x) * (next / view.scale);
    view.y = p.y - (p.y - view.y) * (next / view.scale);
    view.scale = next;
    applyView();
  }, { passive: false });
  var drag = null;
  svgEl.addEventListener("pointerdown", function (ev) {
    if (ev.button !== 0) return;
    var g = ev.target.closest ? ev.target.closest(".node") : null;
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, node: g, moved: false, id: ev.pointerId };
  });
  window.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    drag.moved = true;
    svgEl.classList.add("panning");
    view.x = drag.vx - dx * view.scale;
    view.y = drag.vy - dy * view.scale;
    applyView();
  });
  window.addEventListener("pointerup", function () {
    if (!drag) return;
    var d = drag;
    drag = null;
    svgEl.classList.remove("panning");
    if (!d.moved && d.node) select(nodes[+d.node.getAttribute("data-i")].id, false);
  });
  window.addEventListener("resize", applyView);

  // ---- selection and details -----------------------------------------------------------
  function mark(n, on) {
    if (!n) return;
    n.g.classList.toggle("sel", on);
    n.edgeEls.forEach(function (e) {
      e.path.classList.toggle("hl", on);
      e.path.setAttribute("marker-end", on ? "url(#arrow-hl)" : "url(#arrow)");
      var other = e.from === n ? e.to : e.from;
      other.g.classList.toggle("near", on);
    });
  }
  function select(id, center) {
    var n = byId.get(String(id));
    if (!n) return false;
    mark(selected, false);
    selected = n;
    mark(n, true);
    renderDetails(n);
    if (center) centerOn(n);
    try { history.replaceState(null, "", "#" + encodeURIComponent(n.id)); } catch (e) { /* file: URLs may refuse */ }
    return true;
  }

  function fact(dl, name, value) {
    dl.appendChild(el("dt", null, name));
    var dd = el("dd");
    if (value instanceof Node) dd.appendChild(value); else dd.textContent = show(value);
    dl.appendChild(dd);
  }
  function block(parent, title, text, open) {
    var d = el("details");
    if (open) d.open = true;
    d.appendChild(el("summary", null, title));
    d.appendChild(el("pre", null, text));
    parent.appendChild(d);
    return d;
  }
  function ids(list) {
    var box = el("div", "ids");
    if (!list.length) box.textContent = "\u2014";
    list.forEach(function (id) { box.appendChild(byId.has(id) ? idButton(id) : el("span", null, id)); });
    return box;
  }
  function attemptChain(n) {
    var first = n, seen = new Set([n]);
    while (first.prev !== null && first.prev !== undefined && byId.has(first.prev) && !seen.has(byId.get(first.prev))) {
      first = byId.get(first.prev); seen.add(first);
    }
    var chain = [first], cur = first;
    while (cur.next.length && chain.length < 1000) {
      var next = cur.next.filter(function (c) { return seen.has(c); })[0] || cur.next[0];
      if (chain.indexOf(next) >= 0) break;
      chain.push(next); cur = next;
    }
    return chain;
  }
  function renderDetails(n) {
    var box = document.getElementById("details");
    box.textContent = "";
    var call = n.call !== null && n.call !== undefined ? calls[n.call] : null;
    box.appendChild(el("h2", "thought-id", n.id));
    var badges = el("div", "badges");
    badges.appendChild(el("span", "badge " + state(n), scoreText(n)));
    badges.appendChild(el("span", "badge plain", n.kind || "?"));
    badges.appendChild(el("span", "badge plain", "attempt " + show(n.attempt)));
    if (n.kept === false) badges.appendChild(el("span", "badge bad", "discarded"));
    if (n.valid === false) badges.appendChild(el("span", "badge bad", "not parsed / invalid"));
    if (n.id === summary.final_thought) badges.appendChild(el("span", "badge clean", "final thought"));
    if (n.grown_by) badges.appendChild(el("span", "badge grown", "grown by " + n.grown_by));
    if (call && call.cached) badges.appendChild(el("span", "badge sim", "cache hit"));
    box.appendChild(badges);

    var dl = el("dl", "facts");
    fact(dl, "op", n.op);
    fact(dl, "score (errors)", n.score);
    fact(dl, "kept", n.kept !== false);
    fact(dl, "call", call ? n.call : "none (made in code)");
    if (call && call.model) fact(dl, "model", call.model);
    if (call) {
      fact(dl, "tokens in / out", show(call.prompt_tokens) + " / " + show(call.completion_tokens) + (call.n > 1 ? " (one request for " + call.n + " answers)" : ""));
      fact(dl, "call latency", seconds(call.latency));
      fact(dl, "started \u2192 ended", seconds(call.started) + " \u2192 " + seconds(call.ended));
      fact(dl, "cache hit", !!call.cached);
      if (call.saved_tokens) fact(dl, "tokens saved by cache", call.saved_tokens);
      if (typeof call.cost === "number" && call.cost) fact(dl, "cost", money(call.cost));
      if (call.error) fact(dl, "call error", call.error);
    }
    fact(dl, "hops from input", n.hops);
    fact(dl, "model round", n.round);
    fact(dl, "volume", n.volume);
    if (n.solved !== null && n.solved !== undefined) fact(dl, "matches reference", n.solved);
    box.appendChild(dl);

    box.appendChild(el("h3", null, "Errors"));
    if (n.errors.length) {
      var ul = el("ul", "errors");
      n.errors.forEach(function (e) { ul.appendChild(el("li", null, e)); });
      box.appendChild(ul);
    } else box.appendChild(el("p", null, n.score === null || n.score === undefined ? "not scored" : "none"));

    var chain = attemptChain(n);
    if (chain.length > 1 || n.attempt > 1) {
      box.appendChild(el("h3", null, "Attempt history"));
      var ol = el("ol", "history");
      chain.forEach(function (a) {
        var li = el("li", a === n ? "current" : null);
        li.appendChild(idButton(a.id));
        li.appendChild(document.createTextNode(" \u00b7 " + scoreText(a) + (a.kept === false ? " \u00b7 discarded" : " \u00b7 kept")));
        ol.appendChild(li);
      });
      box.appendChild(ol);
    }
    box.appendChild(el("h3", null, "Depends on"));
    box.appendChild(ids(n.parents.concat(n.prev ? [n.prev] : [])));
    box.appendChild(el("h3", null, "Used by"));
    box.appendChild(ids(n.children.concat(n.next).map(function (c) { return c.id; })));

    block(box, "Parsed content", pretty(n.content), true).className = "content";
    block(box, call ? "Raw answer" : "Text", n.text || "(empty)", true).className = "answer";
    var thinking = call && Array.isArray(call.reasoning) ? call.reasoning[n.answer || 0] : null;
    if (thinking) block(box, "Reasoning (the model's thinking before its answer" + (call.reasoning_tokens ? ", " + show(call.reasoning_tokens) + " tokens in the call" : "") + ")", thinking, false).className = "reasoning";
    var prompt = n.prompt !== null && n.prompt !== undefined ? n.prompt : (call ? call.prompt : null);
    if (prompt !== null && prompt !== undefined) block(box, "Prompt", prompt, chainOpen(prompt)).className = "prompt";
    if (call && Array.isArray(call.texts)) block(box, "Call answers", pretty(call.texts), false);
    if (call && Array.isArray(call.texts) && Array.isArray(call.reasoning)) block(box, "Call reasoning", pretty(call.reasoning), false).className = "reasoning";
    box.scrollTop = 0;
  }
  function chainOpen(prompt) { return String(prompt).length < 4000; }

  // ---- header --------------------------------------------------------------------------
  function renderSummary() {
    var box = document.getElementById("summary");
    var h1 = el("h1", null, "thoughtgraph" + (summary.task ? " \u00b7 " + summary.task : ""));
    var status = summary.status || "unknown";
    h1.appendChild(el("span", "badge " + (status === "clean" ? "clean" : status === "unknown" ? "plain" : "errors"),
      status + (summary.stop_reason ? " (" + summary.stop_reason + ")" : "")));
    if (summary.model) h1.appendChild(el("span", "badge plain", summary.model));
    if (summary.simulated) h1.appendChild(el("span", "badge sim", "SIMULATED model"));
    box.appendChild(h1);
    var dl = el("dl", "stats");
    function stat(name, value) {
      var d = el("div");
      d.appendChild(el("dt", null, name));
      var dd = el("dd");
      if (value instanceof Node) dd.appendChild(value); else dd.textContent = show(value);
      d.appendChild(dd);
      dl.appendChild(d);
    }
    var byKind = summary.calls_by_kind || {};
    var kinds = Object.keys(byKind).map(function (k) { return k + " " + byKind[k]; }).join(", ");
    stat("error scope", summary.error_count);
    stat("calls", show(summary.calls) + (kinds ? " (" + kinds + ")" : ""));
    stat("tokens", show(summary.tokens) + " (" + show(summary.prompt_tokens) + " in / " + show(summary.completion_tokens) + " out)");
    stat("cost", money(summary.cost));
    var models = summary.models || {};
    Object.keys(models).forEach(function (label) {
      var m = models[label];
      stat("model " + label, show(m.calls) + " calls (" + (m.kinds || []).join(", ") + ") \u00b7 " + show(m.tokens) + " tokens \u00b7 " + money(m.cost));
    });
    stat("wall time", seconds(summary.wall_seconds));
    stat("depth", summary.depth === null || summary.depth === undefined ? null : summary.depth + " rounds");
    stat("volume", summary.volume);
    stat("latency", summary.latency === null || summary.latency === undefined ? null : summary.latency + " hops");
    stat("thoughts / ops", show(summary.thoughts) + " / " + show(summary.ops));
    if (summary.cached_calls) stat("cache hits", summary.cached_calls);
    if (summary.failed_calls) stat("failed calls", summary.failed_calls);
    stat("final thought", summary.final_thought && byId.has(summary.final_thought) ? idButton(summary.final_thought) : summary.final_thought);
    box.appendChild(dl);
    var out = el("details", "output");
    var s = el("summary", null, "output: ");
    s.appendChild(el("code", null, short(show(summary.output), 140)));
    out.appendChild(s);
    out.appendChild(el("pre", null, pretty(summary.output)));
    box.appendChild(out);
    if (summary.errors && summary.errors.length) {
      box.appendChild(el("p", "run-errors", "errors: " + short(summary.errors.join("; "), 400)));
    }
  }

  // ---- ops table (built when first opened: a big run has hundreds of ops) ---------------
  function renderOps() {
    var wrap = document.getElementById("ops-table-wrap");
    if (wrap.firstChild) return;
    var table = el("table", "ops");
    var head = el("tr");
    ["op", "kind", "status", "inputs", "thoughts", "calls", "tokens", "cost", "best score", "start", "end", "duration", "end round"]
      .forEach(function (h) { head.appendChild(el("th", null, h)); });
    var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
    var body = el("tbody");
    var firstOf = new Map();
    nodes.forEach(function (n) { if (!firstOf.has(n.op)) firstOf.set(n.op, n.id); });
    ops.forEach(function (op) {
      var tr = el("tr", op.grown_by ? "grown" : null);
      if (op.grown_by) tr.setAttribute("data-grown-by", op.grown_by);
      var dur = typeof op.started === "number" && typeof op.ended === "number" ? op.ended - op.started : null;
      [[op.id], [op.kind], [op.status, "status-" + op.status], [(op.inputs || []).join(", ")],
       [op.thoughts, "num"], [op.calls, "num"], [op.tokens, "num"], [op.cost ? money(op.cost) : null, "num"], [op.best, "num"],
       [seconds(op.started), "num"], [seconds(op.ended), "num"], [seconds(dur), "num"], [op.end_round, "num"]]
        .forEach(function (c) { tr.appendChild(el("td", c[1] || null, show(c[0]))); });
      if (op.grown_by) {  // under the op that grew it, indented by how many growths deep
        var cell = tr.firstChild;
        cell.className = "nest-" + Math.min(op.nest || 1, 6);
        cell.textContent = "\u21b3 " + op.id;
        cell.appendChild(el("span", "badge grown", "grown"));
        cell.title = "grown at run time by " + op.grown_by;
      }
      var target = (op.outputs || []).filter(function (id) { return byId.has(id) && byId.get(id).op === op.id; })[0] || firstOf.get(op.id);
      if (target) tr.addEventListener("click", function () { select(target, true); svgEl.scrollIntoView({ block: "nearest" }); });
      body.appendChild(tr);
    });
    table.appendChild(body);
    wrap.appendChild(table);
  }
  var opsSection = document.getElementById("ops-section");
  opsSection.querySelector("summary").textContent = "Operations (" + ops.length + ")";
  opsSection.addEventListener("toggle", function () { if (opsSection.open) renderOps(); });
  if (ops.length <= 60) { opsSection.open = true; renderOps(); }

  // ---- toolbar -------------------------------------------------------------------------
  document.getElementById("fit").addEventListener("click", fit);
  document.getElementById("fit-all").addEventListener("click", fitAll);
  document.getElementById("to-final").addEventListener("click", function () { select(summary.final_thought, true); });
  var find = document.getElementById("find");
  find.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter") return;
    var q = find.value.trim();
    if (!q) return;
    var hit = byId.has(q) ? q : null;
    for (var i = 0; !hit && i < nodes.length; i++) if (nodes[i].id.indexOf(q) >= 0) hit = nodes[i].id;
    find.classList.toggle("missing", !hit);
    if (hit) select(hit, true);
  });
  window.addEventListener("keydown", function (ev) {
    if (ev.target === find) return;
    if (ev.key === "f") fit();
    if (ev.key === "a") fitAll();
    if (ev.key === "Escape" && selected) { mark(selected, false); selected = null; }
  });

  // ---- go ------------------------------------------------------------------------------
  renderSummary();
  fit();  // before drawing: the first layout then knows whether labels are shown at all
  drawEdges(document.getElementById("edges"));
  drawNodes(document.getElementById("nodes"));
  var wanted = "";
  try { wanted = decodeURIComponent((location.hash || "").slice(1)); } catch (e) { /* a bad hash */ }
  if (wanted) select(wanted, true);
  void svgEl.getBoundingClientRect().width;  // count the layout in the time shown
  var ms = Math.round(performance.now() - t0);
  document.getElementById("stats").textContent = nodes.length + " thoughts \u00b7 " + edges.length + " edges \u00b7 drawn in " + ms + " ms";
  window.thoughtgraphViewer = { select: select, fit: fit, nodes: nodes, edges: edges, renderMs: ms };
  document.body.setAttribute("data-ready", "1");
})();
