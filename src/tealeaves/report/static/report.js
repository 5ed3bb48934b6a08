(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  function el(tag, attrs, text) {
    var node = document.createElementNS(NS, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }
  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }
  function fmt(x, d) { return x === null || x === undefined ? "-" : Number(x).toFixed(d); }

  /* sortable tables: numeric columns (th[data-type=number]) as numbers, a missing value last */
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th").forEach(function (th, col) {
      function sort() {
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        var asc = !th.classList.contains("sorted-asc"), numeric = th.dataset.type === "number";
        table.querySelectorAll("th").forEach(function (h) { h.classList.remove("sorted-asc", "sorted-desc"); });
        th.classList.add(asc ? "sorted-asc" : "sorted-desc");
        rows.sort(function (a, b) {
          var x = a.cells[col].dataset.value, y = b.cells[col].dataset.value, r;
          if (numeric) {
            if (x === "" || y === "") { return (x === "") - (y === ""); }
            r = Number(x) - Number(y);
          } else { r = String(x).localeCompare(String(y)); }
          return asc ? r : -r;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  });

  var blob = document.getElementById("tealeaves-explorer");
  if (!blob) { return; }
  var data = JSON.parse(blob.textContent);
  var modelSel = document.getElementById("explorer-model"), topicSel = document.getElementById("explorer-topic");
  var slider = document.getElementById("relevance-lambda"), shown = document.getElementById("relevance-value");
  var state = {model: modelSel.value, topic: 0};

  function ranking(c, lam) {
    var idx = c.ids.map(function (_, i) { return i; });
    var score = c.logp.map(function (lp, i) { return lam * lp + (1 - lam) * c.loglift[i]; });
    idx.sort(function (i, j) { return (score[j] - score[i]) || (c.ids[i] - c.ids[j]); });
    return idx.slice(0, data.n_words);
  }

  function drawMap(view) {
    var svg = document.getElementById("explorer-map"), W = 420, H = 420, pad = 40;
    clear(svg);
    var xs = view.x, ys = view.y, k = view.k;
    var lo = Math.min.apply(null, xs.concat(ys)), hi = Math.max.apply(null, xs.concat(ys));
    var span = (hi - lo) || 1;
    function sx(v) { return pad + (v - lo) / span * (W - 2 * pad); }
    function sy(v) { return H - pad - (v - lo) / span * (H - 2 * pad); }
    svg.appendChild(el("line", {x1: W / 2, y1: 8, x2: W / 2, y2: H - 8, stroke: "#ddd"}));
    svg.appendChild(el("line", {x1: 8, y1: H / 2, x2: W - 8, y2: H / 2, stroke: "#ddd"}));
    svg.appendChild(el("text", {x: W - 10, y: H / 2 - 4, "text-anchor": "end", "font-size": 11, fill: "#777"}, "PC1"));
    svg.appendChild(el("text", {x: W / 2 + 4, y: 16, "font-size": 11, fill: "#777"}, "PC2"));
    for (var t = 0; t < k; t++) {
      var p = view.prevalence ? view.prevalence[t] : 1 / k;
      var r = Math.max(5, 90 * Math.sqrt(p / Math.PI));
      var flagged = view.topics[t].flags.length > 0, on = t === state.topic;
      var c = el("circle", {cx: sx(xs[t]), cy: sy(ys[t]), r: r, tabindex: 0, role: "button",
        "aria-label": "topic " + t + ": " + view.topics[t].top_words.slice(0, 5).join(" "),
        fill: on ? "#d62728" : (flagged ? "#f2b880" : "#4f81bd"), "fill-opacity": on ? 0.85 : 0.45,
        stroke: on ? "#8b0000" : "#335", "stroke-width": 1, "data-topic": t});
      c.appendChild(el("title", {}, "topic " + t + ": " + view.topics[t].top_words.slice(0, 5).join(" ")));
      c.addEventListener("click", pick(t));
      c.addEventListener("keydown", keyPick(t));
      svg.appendChild(c);
      svg.appendChild(el("text", {x: sx(xs[t]), y: sy(ys[t]) + 4, "text-anchor": "middle", "font-size": 10,
        "pointer-events": "none"}, String(t)));
    }
    /* the selected topic drawn again on top (not focusable: the tab order stays that of the topics) */
    var s = state.topic, rs = Math.max(5, 90 * Math.sqrt((view.prevalence ? view.prevalence[s] : 1 / k) / Math.PI));
    svg.appendChild(el("circle", {cx: sx(xs[s]), cy: sy(ys[s]), r: rs, fill: "#d62728", "fill-opacity": 0.85,
      stroke: "#8b0000", "pointer-events": "none", "class": "selected"}));
    svg.appendChild(el("text", {x: sx(xs[s]), y: sy(ys[s]) + 4, "text-anchor": "middle", "font-size": 10,
      fill: "#fff", "pointer-events": "none"}, String(s)));
  }
  function pick(t) { return function () { select(t); }; }
  function keyPick(t) {
    return function (e) {
      if (e.key !== "Enter" && e.key !== " ") { return; }
      e.preventDefault(); select(t);
      var again = document.querySelector("#explorer-map circle[data-topic='" + t + "']");
      if (again) { again.focus(); }  /* the map was redrawn: keep the keyboard where it was */
    };
  }

  function drawWords(view) {
    var topic = view.topics[state.topic], c = topic.candidates, lam = Number(slider.value);
    shown.textContent = lam.toFixed(2);
    var order = ranking(c, lam), list = document.getElementById("relevance-words"), svg = document.getElementById("explorer-words");
    clear(list); clear(svg);
    var W = 420, row = 22, top = 24, H = top + row * order.length + 10, labelW = 120;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.appendChild(el("text", {x: 4, y: 14, "font-size": 12, fill: "#444"},
      "p(word | topic " + state.topic + "), ranked by relevance at lambda = " + lam.toFixed(2)));
    var maxp = Math.max.apply(null, order.map(function (i) { return Math.exp(c.logp[i]); }));
    order.forEach(function (i, n) {
      var p = Math.exp(c.logp[i]), w = (W - labelW - 60) * p / maxp, y = top + n * row;
      svg.appendChild(el("text", {x: labelW - 6, y: y + 15, "text-anchor": "end", "font-size": 12}, c.words[i]));
      svg.appendChild(el("rect", {x: labelW, y: y + 3, width: Math.max(1, w), height: row - 6, fill: "#4f81bd"}));
      svg.appendChild(el("text", {x: labelW + w + 4, y: y + 15, "font-size": 11, fill: "#555"}, p.toFixed(4)));
      var li = document.createElement("li");
      li.textContent = c.words[i]; li.dataset.word = c.words[i]; li.dataset.id = c.ids[i];
      list.appendChild(li);
    });
  }

  function color(v, lim) {
    if (v === null || v === undefined) { return "#eee"; }
    var s = Math.max(-1, Math.min(1, v / lim)), a = Math.round(255 * (1 - Math.abs(s)));
    return s >= 0 ? "rgb(255," + a + "," + a + ")" : "rgb(" + a + "," + a + ",255)";
  }
  function drawHeatmap(view) {
    var pairs = view.topics[state.topic].pairs, svg = document.getElementById("explorer-heatmap");
    clear(svg);
    var words = pairs.words || [], n = words.length, cell = 26, left = 110, top = 110, lim = 1;
    svg.setAttribute("viewBox", "0 0 " + (left + n * cell + 10) + " " + (top + n * cell + 46));
    if (!n) { svg.appendChild(el("text", {x: 10, y: 20, "font-size": 12}, "no word pairs stored for this topic")); return; }
    pairs.values.forEach(function (r) { r.forEach(function (v) { if (v !== null) { lim = Math.max(lim, Math.abs(v)); } }); });
    words.forEach(function (w, i) {
      svg.appendChild(el("text", {x: left - 4, y: top + i * cell + cell * 0.65, "text-anchor": "end", "font-size": 11}, w));
      svg.appendChild(el("text", {x: 0, y: 0, "font-size": 11,
        transform: "translate(" + (left + i * cell + cell * 0.6) + "," + (top - 4) + ") rotate(-60)"}, w));
      pairs.values[i].forEach(function (v, j) {
        var rect = el("rect", {x: left + j * cell, y: top + i * cell, width: cell - 1, height: cell - 1,
          fill: i === j ? "#fff" : color(v, lim)});
        rect.appendChild(el("title", {}, words[i] + " / " + words[j] + ": " + (i === j ? "-" : fmt(v, 3))));
        svg.appendChild(rect);
      });
    });
    svg.appendChild(el("text", {x: 4, y: top + n * cell + 18, "font-size": 11, fill: "#555"},
      (pairs.measure || "") + " of word pairs: red positive, blue negative,"));
    svg.appendChild(el("text", {x: 4, y: top + n * cell + 34, "font-size": 11, fill: "#555"},
      "scale -" + lim.toFixed(1) + " to " + lim.toFixed(1) + "; hover a cell for its value"));
  }

  function drawScores(view) {
    var topic = view.topics[state.topic], box = document.getElementById("explorer-scores");
    clear(box);
    var h = document.createElement("h3"); h.textContent = view.name + ", topic " + state.topic; box.appendChild(h);
    var p = document.createElement("p"); p.textContent = "top words: " + topic.top_words.join(" "); box.appendChild(p);
    var table = document.createElement("table");
    Object.keys(topic.scores).forEach(function (m) {
      var tr = table.insertRow(), a = tr.insertCell(), b = tr.insertCell();
      a.textContent = m; b.textContent = fmt(topic.scores[m], 4); b.className = "num";
    });
    box.appendChild(table);
    var ul = document.createElement("ul");
    if (!topic.flags.length) { var li0 = document.createElement("li"); li0.textContent = "no junk-topic flag"; ul.appendChild(li0); }
    topic.flags.forEach(function (f) {
      var li = document.createElement("li"); li.className = "flag"; li.textContent = f.flag + ": " + f.explanation; ul.appendChild(li);
    });
    box.appendChild(ul);
  }

  function select(t) {
    state.topic = t; topicSel.value = String(t);
    var view = data.models[state.model];
    drawMap(view); drawWords(view); drawHeatmap(view); drawScores(view);
  }
  function loadModel(name) {
    state.model = name;
    var view = data.models[name];
    clear(topicSel);
    view.topics.forEach(function (t) {
      var o = document.createElement("option"); o.value = String(t.topic);
      o.textContent = t.topic + ": " + t.top_words.slice(0, 4).join(" ") + (t.flags.length ? " (flagged)" : "");
      topicSel.appendChild(o);
    });
    select(name === data.first.model ? data.first.topic : 0);
  }
  modelSel.addEventListener("change", function () { loadModel(modelSel.value); });
  topicSel.addEventListener("change", function () { select(Number(topicSel.value)); });
  slider.addEventListener("input", function () { drawWords(data.models[state.model]); });
  loadModel(modelSel.value);

  /* two-model view */
  var aSel = document.getElementById("pair-a"), bSel = document.getElementById("pair-b");
  function ci(part, d) {
    return fmt(part.estimate, d) + " [" + fmt(part.low, d) + ", " + fmt(part.high, d) + "]";
  }
  function drawPair() {
    var key = aSel.value + "|" + bSel.value, pair = data.pairs[key], out = document.getElementById("pair-summary");
    var body = document.getElementById("pair-topics").tBodies[0];
    clear(out); clear(body);
    if (!pair) { out.textContent = "no precomputed comparison for these two models"; return; }
    var lines = ["Matched topics (1 - Jensen-Shannon distance, optimal one-to-one): mean similarity " + fmt(pair.mean_similarity, 3) + "."];
    var cmp = pair.compare;
    if (cmp.error) { lines.push("Paired differences not available: " + cmp.error); }
    else {
      var lvl = Math.round(cmp.level * 100) + "%";
      lines.push("Held-out log-likelihood per word, A - B: " + ci(cmp.loglik_per_word, 4) + " (" + lvl +
        " paired bootstrap over " + cmp.loglik_per_word.documents + " test documents; positive favours A).");
      if (cmp.coherence) { lines.push("Mean " + cmp.coherence.of + ", A - B: " + ci(cmp.coherence, 4) + " (" + lvl + " bootstrap over topics)."); }
    }
    lines.forEach(function (s) { var p = document.createElement("p"); p.textContent = s; out.appendChild(p); });
    pair.pairs.forEach(function (r) {
      var tr = body.insertRow();
      [[r.topic_a, r.topic_a], [r.words_a, r.words_a], [r.similarity.toFixed(3), r.similarity], [r.topic_b, r.topic_b], [r.words_b, r.words_b]]
        .forEach(function (v, i) { var td = tr.insertCell(); td.textContent = v[0]; td.dataset.value = v[1]; if (i === 0 || i === 2 || i === 3) { td.className = "num"; } });
    });
  }
  function fillB() {
    var keep = bSel.value; clear(bSel);
    (data.pair_options[aSel.value] || []).forEach(function (b) {
      var o = document.createElement("option"); o.value = b; o.textContent = b; bSel.appendChild(o);
    });
    if ((data.pair_options[aSel.value] || []).indexOf(keep) >= 0) { bSel.value = keep; }
    drawPair();
  }
  if (aSel) {
    aSel.addEventListener("change", fillB);
    bSel.addEventListener("change", drawPair);
    fillB();
  }
})();
