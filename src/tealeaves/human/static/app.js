// tealeaves annotation page: one item at a time, answered by click or number key.
"use strict";
(function () {
  const token = location.pathname.split("/").filter(Boolean).pop();
  const $ = (id) => document.getElementById(id);
  let current = null;      // the item shown
  let key = null;          // idempotency key of its submission
  let shownAt = 0;
  let busy = false;

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    const a = new Uint8Array(16);
    crypto.getRandomValues(a);
    return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  const LABELS = { "2": "coherent", "1": "somewhat coherent", "0": "incoherent" };
  const PROMPTS = {
    word_intrusion: "Which word does not belong with the others?",
    topic_intrusion: "Which topic does NOT belong to this document?",
    rating: "How coherent are these words: do they describe one subject?",
    multilingual_rating: "Do the two lists of words talk about the same, coherent subject?",
  };

  function optionLabel(item, value) {
    if (item.task === "topic_intrusion") return item.option_words[value].join(", ");
    const defaultScale = item.options.length === 3 && ["0", "1", "2"].every((v) => item.options.includes(v));
    if ((item.task === "rating" || item.task === "multilingual_rating") && defaultScale) return LABELS[value];
    return value;
  }

  function renderContext(item) {
    const ctx = $("context");
    ctx.replaceChildren();
    if (item.task === "topic_intrusion") {
      ctx.append(el("div", "doc-title", item.title), el("p", "doc-text", item.text));
    } else if (item.task === "rating") {
      ctx.append(el("p", "words", item.words.join("  ·  ")));
    } else if (item.task === "multilingual_rating") {
      const cols = el("div", "columns");
      for (const lang of item.languages) {
        const col = el("div", "column");
        col.append(el("h3", "", lang), el("p", "words", item.words[lang].join("  ·  ")));
        cols.append(col);
      }
      ctx.append(cols);
    }
  }

  function render(state) {
    $("study").textContent = state.study;
    const n = Math.min(state.answered + (state.item ? 1 : 0), state.total);
    $("progress").textContent = state.item
      ? `Item ${n} of ${state.total} (${state.answered} answered)`
      : `${state.answered} of ${state.total} answered`;
    $("bar-fill").style.width = `${(100 * state.answered) / Math.max(state.total, 1)}%`;
    current = state.item;
    if (!current) {
      $("item").hidden = true;
      $("done").hidden = false;
      return;
    }
    key = newKey();
    shownAt = performance.now();
    $("item").hidden = false;
    $("done").hidden = true;
    $("item").dataset.itemId = current.id;
    $("prompt").textContent = PROMPTS[current.task] || "Choose one:";
    renderContext(current);
    $("confidence").hidden = !state.confidence;
    document.querySelectorAll("input[name=confidence]").forEach((r) => (r.checked = false));
    const opts = $("options");
    opts.replaceChildren();
    opts.className = current.task === "topic_intrusion" ? "stacked" : "";
    current.options.forEach((value, i) => {
      const b = el("button", "option");
      b.type = "button";
      b.dataset.value = value;
      b.append(el("kbd", "", String(i + 1)), document.createTextNode(optionLabel(current, value)));
      b.addEventListener("click", () => answer(value));
      opts.append(b);
    });
  }

  async function api(path, options) {
    const r = await fetch(`/api/${token}/${path}`, options);
    const body = await r.json().catch(() => ({}));
    return { code: r.status, body };
  }

  async function load() {
    for (let attempt = 0; ; attempt++) {
      try {
        const { code, body } = await api("state");
        if (code === 200) { $("status").textContent = ""; return render(body); }
        $("status").textContent = body.error || `Error ${code}`;
        return;
      } catch (e) {
        $("status").textContent = "Connection lost, retrying…";
        await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 5000)));
      }
    }
  }

  async function answer(value) {
    if (busy || !current) return;
    busy = true;
    document.querySelectorAll("button.option").forEach((b) => (b.disabled = true));
    const conf = document.querySelector("input[name=confidence]:checked");
    const payload = JSON.stringify({
      item_id: current.id, response: value, key,
      confidence: conf ? Number(conf.value) : null,
      time: Math.round(performance.now() - shownAt) / 1000,
    });
    for (let attempt = 0; ; attempt++) {
      try {
        const { code, body } = await api("judgments", {
          method: "POST", headers: { "Content-Type": "application/json" }, body: payload,
        });
        if (code === 200 || code === 409) break;  // stored, duplicate of a retry, or answered elsewhere
        if (code >= 400 && code < 500) { $("status").textContent = body.error || `Error ${code}`; break; }
      } catch (e) { /* network error: retry with the same key */ }
      $("status").textContent = "Saving… (retrying)";
      await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 5000)));
    }
    busy = false;
    await load();
  }

  document.addEventListener("keydown", (ev) => {
    if (!current || busy || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const i = Number(ev.key) - 1;
    if (Number.isInteger(i) && i >= 0 && i < current.options.length) {
      ev.preventDefault();
      answer(current.options[i]);
    }
  });

  load();
})();
