// The live traffic view: one Server-Sent Events feed, an update a second,
// drawn with uPlot. Every value from the server is set as text.
(function () {
  "use strict";
  var root = document.getElementById("live");
  if (!root) return;
  var win = parseInt(root.getAttribute("data-window"), 10) || 60;
  var state = document.getElementById("feed-state");
  var stagesEl = document.getElementById("stages");
  var none = document.getElementById("no-stages");
  var keysBody = document.querySelector("#keys tbody");
  var keyCharts = document.getElementById("key-charts");
  var latest = Math.floor(Date.now() / 1000); // the newest update's second
  // Every chart spans the window up to the newest second.
  var xScale = { time: true, range: function () { return [latest - win + 1, latest]; } };
  var charts = {};   // stage id -> {card, plot, nums}
  var keys = {};     // key id -> {row, last, series, plot}
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  var axis = dark ? "#c9d1d9" : "#24292f";
  var grid = dark ? "#30363d" : "#d0d7de";

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function width(node) { return Math.max(280, (node.clientWidth || 600) - 24); }
  function axes(unitRight) {
    var a = [{ stroke: axis, grid: { stroke: grid } }, { stroke: axis, grid: { stroke: grid }, label: "requests/s" }];
    if (unitRight) a.push({ side: 1, stroke: axis, grid: { show: false }, scale: "ms", label: "ms" });
    return a;
  }
  function sum(a) { var n = 0; for (var i = 0; i < a.length; i++) n += a[i]; return n; }
  function last(a) { return a.length ? a[a.length - 1] : 0; }

  function stageCard(s, id) {
    var card = el("section", "chart-card");
    card.setAttribute("data-stage", id);
    var h = el("h3");
    var link = el("a", null, s.api + " / " + s.stage);
    if (s.apiId) link.href = "/_emulator/ui/apis/" + encodeURIComponent(s.account) + "/" + encodeURIComponent(s.region) + "/" + encodeURIComponent(s.apiId);
    h.appendChild(link);
    h.appendChild(el("span", "muted", " " + s.kind + " · " + s.account + " · " + s.region));
    card.appendChild(h);
    var nums = el("p", "nums");
    card.appendChild(nums);
    var box = el("div", "plot");
    card.appendChild(box);
    stagesEl.appendChild(card);
    var opts = {
      width: width(card), height: 220,
      scales: { x: xScale, ms: { auto: true } },
      series: [{},
        { label: "2xx/s", stroke: "#2da44e", width: 2 },
        { label: "4xx/s", stroke: "#bf8700", width: 2 },
        { label: "5xx/s", stroke: "#cf222e", width: 2 },
        { label: "p50 ms", stroke: "#0969da", scale: "ms", dash: [4, 4] },
        { label: "p99 ms", stroke: "#8250df", scale: "ms", dash: [4, 4] }],
      axes: axes(true)
    };
    var plot = new uPlot(opts, [[], [], [], [], [], []], box);
    return { card: card, plot: plot, nums: nums };
  }

  function drawStage(s, now) {
    var id = s.account + "/" + s.region + "/" + s.kind + "/" + s.api + "/" + s.stage;
    var c = charts[id] || (charts[id] = stageCard(s, id));
    c.seen = now;
    var n = s.count.length, xs = new Array(n);
    for (var i = 0; i < n; i++) xs[i] = s.start + i;
    c.plot.setData([xs, s.s2xx, s.s4xx, s.s5xx, s.p50, s.p99]);
    // The last whole second, and the window's totals.
    var j = Math.max(0, n - 2);
    c.nums.textContent = "";
    var parts = [
      ["rps", "req/s", s.count[j] || 0],
      ["total", "requests", sum(s.count)],
      ["s2xx", "2xx", sum(s.s2xx)],
      ["s4xx", "4xx", sum(s.s4xx)],
      ["s5xx", "5xx", sum(s.s5xx)],
      ["p50", "p50 ms", (s.p50[j] || 0).toFixed(1)],
      ["p99", "p99 ms", (s.p99[j] || 0).toFixed(1)],
      ["throttled", "throttled", s.throttled],
      ["quota", "over quota", s.quota]
    ];
    parts.forEach(function (p) {
      var b = el("span", "num " + p[0]);
      b.setAttribute("data-value", String(p[2]));
      b.appendChild(el("b", null, String(p[2])));
      b.appendChild(document.createTextNode(" " + p[1]));
      c.nums.appendChild(b);
    });
  }

  function drawKey(k, now) {
    var id = k.account + "/" + k.region + "/" + k.plan + "/" + k.key;
    var x = keys[id];
    if (!x) {
      var row = el("tr");
      row.setAttribute("data-key", k.key);
      for (var i = 0; i < 9; i++) row.appendChild(el("td"));
      keysBody.appendChild(row);
      var card = el("section", "chart-card");
      card.appendChild(el("h3", null, (k.planName || k.plan) + " / " + (k.name || k.key)));
      var box = el("div", "plot");
      card.appendChild(box);
      keyCharts.appendChild(card);
      var plot = new uPlot({
        width: width(card), height: 180, scales: { x: xScale },
        series: [{}, { label: "admitted/s", stroke: "#2da44e", width: 2 },
          { label: "throttled/s", stroke: "#bf8700", width: 2 },
          { label: "over quota/s", stroke: "#cf222e", width: 2 }],
        axes: axes(false)
      }, [[], [], [], []], box);
      x = keys[id] = { row: row, prev: null, data: [[], [], [], []], plot: plot };
    }
    var d = { a: 0, t: 0, q: 0 };
    if (x.prev) {
      d.a = Math.max(0, k.admitted - x.prev.admitted);
      d.t = Math.max(0, k.throttled - x.prev.throttled);
      d.q = Math.max(0, k.quota - x.prev.quota);
      x.data[0].push(now); x.data[1].push(d.a); x.data[2].push(d.t); x.data[3].push(d.q);
      while (x.data[0].length && x.data[0][0] <= now - win) x.data.forEach(function (a) { a.shift(); });
      x.plot.setData(x.data);
    }
    x.prev = k;
    var cells = x.row.children;
    var vals = [k.planName || k.plan, k.name || k.key, d.a, d.t, d.q, k.admitted, k.throttled, k.quota,
      k.remaining < 0 ? "no quota" : k.remaining];
    for (var c = 0; c < vals.length; c++) cells[c].textContent = String(vals[c]);
  }

  var src;
  function connect() {
    src = new EventSource("/_emulator/ui/feed/traffic?window=" + win);
    src.addEventListener("open", function () { state.textContent = "live"; });
    src.addEventListener("error", function () { state.textContent = "reconnecting…"; });
    src.addEventListener("traffic", function (ev) {
      var u = JSON.parse(ev.data);
      latest = u.now;
      state.textContent = "live · updated " + new Date(u.now * 1000).toLocaleTimeString();
      none.hidden = u.stages.length > 0;
      u.stages.forEach(function (s) { drawStage(s, u.now); });
      Object.keys(charts).forEach(function (id) {
        if (charts[id].seen !== u.now) { charts[id].card.remove(); delete charts[id]; }
      });
      u.keys.forEach(function (k) { drawKey(k, u.now); });
    });
  }
  connect();
  window.addEventListener("resize", function () {
    Object.keys(charts).forEach(function (id) { var c = charts[id]; c.plot.setSize({ width: width(c.card), height: 220 }); });
  });
})();
