// tblock studio: the page's own script (no framework, nothing from the network).
// Every check of a value is the server's, which is the CLI's: the page shows its one-line errors.
"use strict";

const Studio = (() => {
  const $ = (id) => document.getElementById(id);
  const el = (tag, props = {}, ...children) => {
    const node = Object.assign(document.createElement(tag), props);
    for (const child of children) node.append(child);
    return node;
  };

  async function call(method, url, body) {
    const init = { method, headers: { "Content-Type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(url, init);
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    return { ok: response.ok, status: response.status, data };
  }

  function showError(node, text) {
    node.textContent = text || "";
    node.hidden = !text;
  }

  // -- the index: a card per topic ------------------------------------------------------

  async function index() {
    const got = await call("GET", "/api/topics");
    if (!got.ok) return showError($("load-error"), (got.data && got.data.error) || "cannot load the topics");
    for (const t of got.data) {
      const picture = t.storyboard
        ? el("img", { src: t.storyboard, alt: `storyboard of ${t.slug}`, loading: "lazy" })
        : el("div", { className: "none", textContent: "no storyboard yet" });
      $("cards").append(el("a", { className: "card", href: `/topic/${t.slug}`, id: `card-${t.slug}` },
        picture, el("h3", { textContent: t.slug }), el("p", { textContent: t.description })));
    }
  }

  // -- a topic's page -------------------------------------------------------------------

  // edited: narration changed since the last render; applied: the edits that render spoke (kept for exports)
  // readonly: the lesson page (its words are the lesson file's; the steps only show and seek)
  const page = { slug: "", flags: [], job: null, source: null, manifest: null, edited: {}, applied: {}, lastBody: null,
                 readonly: false, shown: null };  // shown: the job whose result is on the page

  function control(flag) {
    const id = `f-${flag.name}`;
    const cliName = flag.flag.split("/")[0];
    const meta = el("div", { className: "meta" },
      el("span", { className: "range", textContent: flag.range }), el("span", { textContent: flag.help }));
    if (flag.type === "bool") {
      const box = el("input", { type: "checkbox", id, name: cliName, checked: flag.default });
      box.dataset.field = flag.name;
      return el("div", { className: "row check" }, box, el("label", { htmlFor: id, textContent: flag.flag }), meta);
    }
    let input;
    if (flag.choices) {
      input = el("select", { id, name: cliName });
      for (const c of flag.choices) input.append(el("option", { value: c, textContent: c, selected: c === flag.default }));
    } else {
      input = el("input", { type: "text", id, name: cliName, value: shownDefault(flag), spellcheck: false });
      if (flag.type !== "str" && flag.type !== "path") input.inputMode = flag.type === "int" ? "numeric" : "decimal";
    }
    input.dataset.field = flag.name;
    return el("div", { className: "row" }, el("label", { htmlFor: id, textContent: cliName }), input, meta);
  }

  // a text box's default as shown: none (a --world not given) is an empty box, never the text "null"
  const shownDefault = (flag) => (flag.default === null ? "" : String(flag.default));

  // a number as typed, ASCII digits only ("1_0", "0x10", "３" are no numbers here: they go as text and
  // the server refuses them in its own words); a whole number has no point or exponent
  const WHOLE = /^[+-]?[0-9]+$/;
  const DECIMAL = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
  function asNumber(text, whole = false) {
    const value = text.trim();
    return (whole ? WHOLE : DECIMAL).test(value) ? Number(value) : text;
  }

  function typed(flag, value) {
    return flag.type === "int" || flag.type === "float" ? asNumber(value, flag.type === "int") : value;
  }

  function params() {
    const values = {};
    for (const flag of page.flags) {
      const input = $(`f-${flag.name}`);
      if (flag.type === "bool") {
        if (input.checked !== flag.default) values[flag.name] = input.checked;
        continue;
      }
      const value = input.value;
      if (flag.default === null && value.trim() === "") continue;  // an empty box: the flag is not given
      if (value !== shownDefault(flag)) values[flag.name] = typed(flag, value);
    }
    return values;
  }

  function body(extra = {}) {
    const edits = { ...page.applied, ...page.edited };
    const script = Object.keys(edits).length ? edits : undefined;
    const world = page.world && $("world-use").checked ? worldTable() : undefined;
    return { topic: page.slug, params: params(), quality: $("opt-quality").value, theme: $("opt-theme").value,
             lang: $("opt-lang").value, voice: $("opt-voice").checked || Boolean(script), script, world, ...extra };
  }

  let checkTimer = null;
  function scheduleCheck() {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(check, 200);
  }

  async function check() {
    const got = await call("POST", "/api/check", body());
    markInvalid(got.ok ? "" : got.data.error);
    const message = got.ok ? "" : (got.data && got.data.error) || "";
    if ($("world-error")) showError($("world-error"), message.includes("-world.toml: ") ? message : "");
    if (got.ok) $("command").textContent = got.data.command;
    showError($("form-error"), got.ok ? "" : got.data.error);
    return got.ok;
  }

  function markInvalid(message) {
    for (const flag of page.flags) {
      const input = $(`f-${flag.name}`);
      const named = message && (message.includes(`'${flag.flag.split("/")[0]}'`) || message.includes(`${flag.flag.split("/")[0]} `));
      input.setAttribute("aria-invalid", named ? "true" : "false");
    }
  }

  async function topic() {
    page.slug = decodeURIComponent(location.pathname.split("/").pop());
    const got = await call("GET", "/api/topics");
    const info = got.ok && got.data.find((t) => t.slug === page.slug);
    if (!info) return showError($("form-error"), `unknown topic ${page.slug}`);
    document.title = `tblock studio: ${info.slug}`;
    $("topic-title").textContent = `${info.slug}: ${info.description}`;
    page.flags = info.flags;
    for (const flag of info.flags) $("flag-list").append(control(flag));
    $("flags").addEventListener("input", scheduleCheck);
    $("flags").addEventListener("change", scheduleCheck);
    $("preview").addEventListener("click", () => start(body({ format: "mp4", frames: true }), "preview"));
    $("rerender").addEventListener("click", () => start(body({ format: "mp4", voice: true }), "preview"));
    $("cancel").addEventListener("click", cancel);
    $("copy").addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText($("command").textContent));
    for (const button of document.querySelectorAll(".exports button")) button.addEventListener("click", () => exportWith(button));
    $("add-to-lesson").addEventListener("click", addToLesson);
    $("video").addEventListener("timeupdate", highlightStep);
    $("world-box").hidden = !info.world;
    $("world-load").addEventListener("click", loadWorld);
    $("world-upload").addEventListener("change", uploadWorld);
    $("world-download").addEventListener("click", downloadWorld);
    $("world-use").addEventListener("change", scheduleCheck);
    check();
  }

  // -- your own numbers: the topic's world as an editable table (checked by the server, as --world is) --

  async function loadWorld() {
    showWorld(await call("POST", "/api/world", { topic: page.slug, params: params() }));
  }

  // a world file of your own, sent to the studio (it reads no path outside its folder): checked, then the table
  async function uploadWorld() {
    const file = $("world-upload").files[0];
    if (!file) return;
    showWorld(await call("POST", "/api/world", { topic: page.slug, toml: await file.text(), name: file.name }));
    $("world-upload").value = "";
  }

  function showWorld(got) {
    showError($("world-error"), got.ok ? "" : (got.data && got.data.error) || `HTTP ${got.status}`);
    if (!got.ok) return;
    page.world = got.data;
    const box = $("world-table");
    box.replaceChildren();
    for (const key of got.data.keys) {
      if (key === "topic") continue;
      const value = got.data.table[key];
      if (key === "tokens" || key === "dims") {
        box.append(el("div", { className: "row" }, el("label", { htmlFor: `w-${key}`, textContent: key }),
          el("input", { type: "text", id: `w-${key}`, value: value.join(", "), spellcheck: false }),
          el("span", { className: "help", textContent: key === "tokens" ? "the words, comma-separated" : "one name per dimension" })));
        continue;
      }
      const shape = got.data.shapes[key];
      box.append(el("h3", { textContent: `${key} (${shape.symbols.join(", ")})`, title: shape.meaning }),
        el("p", { className: "help", textContent: shape.meaning }));
      const blocks = shape.symbols.length === 3 ? value : [value];
      blocks.forEach((block, b) => box.append(numberGrid(key, shape.symbols.length === 3 ? b : null, block)));
    }
    $("world-download").disabled = false;
    $("world-use").checked = true;
    box.addEventListener("input", scheduleCheck);
    scheduleCheck();
  }

  function numberGrid(key, block, rows) {
    const table = el("table", { className: "world-grid" });
    for (const [i, row] of (Array.isArray(rows[0]) ? rows : [rows]).entries()) {
      const tr = el("tr");
      for (const [j, v] of row.entries()) {
        const input = el("input", { type: "text", value: String(v), size: 6, inputMode: "decimal", spellcheck: false });
        Object.assign(input.dataset, { key, block: block === null ? "" : block, row: Array.isArray(rows[0]) ? i : "", col: j });
        tr.append(el("td", {}, input));
      }
      table.append(tr);
    }
    return table;
  }

  // the table as the server reads a world file: words as lists, a number typed as one as a JSON number, any
  // other text as it is (the server refuses it, as it refuses a string in a world file)
  function worldTable() {
    const table = { topic: page.slug };
    for (const key of ["tokens", "dims"]) if ($(`w-${key}`)) table[key] = $(`w-${key}`).value.split(",").map((w) => w.trim());
    for (const input of document.querySelectorAll("#world-table input[data-key]")) {
      const { key, block, row, col } = input.dataset;
      let at = table[key] = table[key] || [];
      if (block !== "") at = at[block] = at[block] || [];
      if (row !== "") at = at[row] = at[row] || [];
      at[col] = asNumber(input.value);
    }
    return table;
  }

  async function downloadWorld() {
    const got = await call("POST", "/api/world", { topic: page.slug, world: worldTable() });
    showError($("world-error"), got.ok ? "" : (got.data && got.data.error) || `HTTP ${got.status}`);
    if (!got.ok) return;
    const link = el("a", { href: URL.createObjectURL(new Blob([got.data.toml], { type: "application/toml" })),
                           download: `${page.slug}-world.toml` });
    document.body.append(link);
    link.click();
    link.remove();
  }

  // -- lessons: add this topic as a clip; the lesson page previews its clips -------------

  const lessonUrl = (file) => `/lesson?file=${encodeURIComponent(file)}`;

  async function addToLesson() {
    const file = $("lesson-file").value.trim();
    const got = await call("POST", "/api/lessons/clips",
      { lesson: file, topic: page.slug, params: params(), title: $("clip-title").value.trim() || undefined });
    showError($("lesson-error"), got.ok ? "" : (got.data && got.data.error) || `HTTP ${got.status}`);
    $("lesson-status").replaceChildren();
    if (!got.ok) return;
    $("lesson-status").append(`added as clip ${got.data.clips} of ${got.data.lesson}: `,
      el("a", { href: lessonUrl(got.data.lesson), id: "lesson-link", textContent: "open the lesson" }));
  }

  async function lesson() {
    page.readonly = true;
    const file = new URLSearchParams(location.search).get("file") || "lessons/lesson.toml";
    $("lesson-file").textContent = file;
    $("cancel").addEventListener("click", cancel);
    $("video").addEventListener("timeupdate", highlightStep);
    const got = await call("GET", `/api/lessons?file=${encodeURIComponent(file)}`);
    if (!got.ok) return showError($("lesson-error"), (got.data && got.data.error) || `HTTP ${got.status}`);
    document.title = `tblock studio: ${got.data.title}`;
    $("lesson-title").textContent = `${got.data.title} (${got.data.quality}, ${got.data.theme}${got.data.voice ? ", voice" : ""})`;
    for (const clip of got.data.clips) $("clips").append(clipItem(clip));
  }

  function clipItem(clip) {
    const words = (label, table) => Object.entries(table).map(([step, text]) =>
      el("div", { className: "meta", textContent: `${label} ${step}: ${text}` }));
    const button = el("button", { type: "button", className: "primary", textContent: "Preview" });
    const item = el("li", { id: `clip-${clip.index}` },
      el("div", { className: "head" }, el("span", { className: "name", textContent: `${clip.index}. ${clip.topic}` }), button),
      el("div", { className: "caption", textContent: clip.title }),
      el("div", { className: "flags", textContent: clip.flags || "(default flags)" }),
      el("div", { className: "meta", textContent: clip.steps ? `steps: ${clip.steps.join(", ")}` : "steps: all" }),
      ...words("caption", clip.captions), ...words("speech", clip.speech));
    button.addEventListener("click", () => {
      for (const other of $("clips").children) other.classList.toggle("current", other === item);
      start(clip.request, "preview");
    });
    return item;
  }

  // -- jobs ---------------------------------------------------------------------------

  async function start(request, kind, label = "") {
    const got = await call("POST", "/api/renders", request);
    if (!got.ok) {
      const message = (got.data && got.data.error) || `HTTP ${got.status}`;
      if (kind === "preview") { showError($("form-error"), message); markInvalid(message); } else $("export-status").textContent = message;
      return;
    }
    showError($("form-error"), "");
    $("command").textContent = got.data.command;
    if (kind === "preview") {
      if (page.source) page.source.close();
      page.job = got.data.id;
      document.body.dataset.job = got.data.id;
      page.lastBody = request;
      $("cancel").disabled = false;
      $("frames").replaceChildren();
      $("frames").hidden = true;
      if ($("video").hidden) $("placeholder").textContent = "Rendering: the step-end frames come first where this tree draws them, then the video.";
      setProgress(got.data);
    }
    follow(got.data.id, kind, label);
  }

  function follow(id, kind, label) {
    const source = new EventSource(`/api/renders/${id}/events`);
    if (kind === "preview") page.source = source;
    source.onmessage = (message) => {
      const status = JSON.parse(message.data);
      if (kind === "preview") previewStatus(status); else exportStatus(status, label);
      // the stream ends when the job and its step-end frames have (frames may come after the video)
      if (["done", "failed", "cancelled"].includes(status.state) && !status.frames_pending) source.close();
    };
    source.onerror = () => { /* the browser reconnects; a finished job's stream simply ends */ };
  }

  function setProgress(status) {
    const bar = $("progress");
    const percent = Math.round(100 * (status.progress || 0));
    $("progress-fill").style.width = `${percent}%`;
    bar.setAttribute("aria-valuenow", String(percent));
    bar.className = `progress ${status.state}`;
    const counts = status.plays ? `, ${status.plays} animations (${status.cached} from the step cache)` : "";
    const words = { queued: "queued", running: `rendering ${percent}%${counts}`, cancelled: "cancelled",
                    failed: "failed", done: status.skipped ? "up to date (nothing to render)" : `done in ${status.seconds} s${counts}` };
    $("status").textContent = words[status.state] || status.state;
    $("status").dataset.state = status.state;
  }

  function previewStatus(status) {
    if (status.id !== page.job) return;
    setProgress(status);
    showFrames(status.frames);
    if (status.state === "failed") showError($("form-error"), status.error);
    if (["done", "failed", "cancelled"].includes(status.state)) $("cancel").disabled = true;
    if (status.state === "done" && page.shown !== status.id) {  // once: later statuses bring frames only
      page.shown = status.id;
      showResult(status);
    }
  }

  function showFrames(frames) {
    const box = $("frames");
    const latest = frames[frames.length - 1];
    if (latest && $("video").hidden) {  // before the video: the newest step-end frame, large
      $("placeholder").replaceChildren(el("img", { src: latest.url, alt: `end of ${latest.step}`, className: "early" }),
        el("div", { className: "early-caption", textContent: `end of step ${latest.index + 1}, ${latest.step}: drawn with the animations skipped; the video follows` }));
    }
    for (const frame of frames.slice(box.children.length)) {
      const figure = el("figure", {}, el("img", { src: frame.url, alt: `end of ${frame.step}` }),
        el("figcaption", { textContent: `${frame.index + 1}. ${frame.step}` }));
      figure.dataset.step = frame.step;
      figure.addEventListener("click", () => seekStep(frame.step, "end"));
      box.append(figure);
      box.hidden = false;
    }
  }

  async function cancel() {
    if (!page.job) return;
    await call("DELETE", `/api/renders/${page.job}`);
  }

  // -- the result: video, steps, numbers ------------------------------------------------

  function showResult(status) {
    const manifest = status.manifest;
    page.manifest = manifest;
    const video = $("video");
    const primary = status.files[0];
    const captions = status.files.find((f) => f.endsWith(".srt"));
    video.replaceChildren();
    video.src = `${primary}?job=${status.id}`;
    if (captions) {
      const lang = (manifest && manifest.lang) || "en";  // an English manifest has no lang key
      showSubtitlesBelow(video, `${captions}?as=vtt&job=${status.id}`, lang === "zh" ? "zh-Hans" : lang);
    } else $("subtitle").hidden = true;
    video.hidden = false;
    $("placeholder").hidden = true;
    video.load();
    video.play().catch(() => {});
    page.applied = { ...((page.lastBody && page.lastBody.script) || {}) };
    page.edited = {};
    renderSteps(manifest, status.drawn_steps, status.skipped);
    if (page.readonly) return;
    renderNumbers(manifest.numbers || {});
    const link = $("script-link");
    link.hidden = !status.script;
    if (status.script) { link.href = status.script; link.download = status.script.split("/").pop(); }
    $("rerender").disabled = true;
  }

  // the captions as a line under the picture, never over it: the track is loaded hidden and each
  // cue's text is copied into #subtitle while it is active
  function showSubtitlesBelow(video, src, srclang) {
    const line = $("subtitle");
    const track = el("track", { kind: "subtitles", srclang, label: "captions", src });
    video.append(track);
    track.track.mode = "hidden";
    line.textContent = "";
    line.hidden = false;
    track.track.addEventListener("cuechange", () => {
      const cues = Array.from(track.track.activeCues || []);
      line.textContent = cues.map((cue) => cue.text).join("\n");
    });
  }

  function renderSteps(manifest, drawn, skipped) {
    const list = $("steps");
    list.replaceChildren();
    manifest.steps.forEach((step, i) => {
      const narration = el("textarea", { value: step.narration || step.speech || "", rows: 2,
        placeholder: "narration (spoken with --voice)", ariaLabel: `narration of ${step.name}`, readOnly: page.readonly });
      narration.dataset.step = step.name;
      narration.addEventListener("click", (event) => event.stopPropagation());
      narration.addEventListener("input", () => {
        const original = step.narration || step.speech || "";
        if (narration.value.trim() && narration.value.trim() !== original.trim()) page.edited[step.name] = narration.value.trim();
        else delete page.edited[step.name];
        item.querySelector(".edited").hidden = !(step.name in page.edited);
        $("rerender").disabled = !Object.keys(page.edited).length;
        scheduleCheck();
      });
      const redrawn = !skipped && drawn.includes(step.name);
      const item = el("li", { id: `step-${step.name}` },
        el("div", { className: "head" }, el("span", { className: "name", textContent: `${i + 1}. ${step.name}` }),
          el("span", { className: "time", textContent: `${step.start.toFixed(1)}–${step.end.toFixed(1)} s` }),
          el("span", { className: "badge drawn", textContent: "redrawn", hidden: !redrawn, title: "animations drawn in this render (the others came from the step cache)" }),
          el("span", { className: "badge edited", textContent: "edited", hidden: true })),
        el("div", { className: "caption", textContent: step.caption }), narration);
      item.dataset.start = step.start;
      item.dataset.end = step.end;
      item.dataset.redrawn = redrawn ? "1" : "0";
      item.addEventListener("click", () => seekStep(step.name, "start"));
      list.append(item);
    });
  }

  function seekStep(name, where) {
    const step = page.manifest && page.manifest.steps.find((s) => s.name === name);
    if (!step) return;
    const video = $("video");
    video.currentTime = where === "end" ? Math.max(step.start, step.end - 0.05) : step.start + 0.01;
  }

  function highlightStep() {
    const t = $("video").currentTime;
    for (const item of $("steps").children) {
      item.classList.toggle("current", t >= Number(item.dataset.start) && t < Number(item.dataset.end));
    }
  }

  function renderNumbers(numbers) {
    const table = $("numbers");
    table.replaceChildren();
    for (const [key, value] of Object.entries(numbers)) {
      let text = JSON.stringify(value, (k, v) => (typeof v === "number" ? Number(v.toPrecision(6)) : v));
      if (text.length > 400) text = `${text.slice(0, 400)} …`;
      table.append(el("tr", {}, el("td", { textContent: key }), el("td", { textContent: text })));
    }
  }

  // -- exports -------------------------------------------------------------------------

  function exportWith(button) {
    const extra = { format: "mp4" };
    if (button.dataset.exportFormat) extra.format = button.dataset.exportFormat;
    if (button.dataset.exportSections) extra.sections = true;
    if (button.dataset.export) extra.export = button.dataset.export;
    let label = button.textContent;
    if (extra.format === "gif") {  // a GIF has no sound track: the picture alone, without the voice or its script
      Object.assign(extra, { voice: false, script: undefined });
      label = `${label} (no sound)`;
    }
    $("export-status").textContent = `${label}: queued`;
    start(body(extra), "export", label);
  }

  function exportStatus(status, label) {
    const percent = Math.round(100 * (status.progress || 0));
    $("export-status").textContent = status.state === "done" ? `${label}: ready` :
      status.state === "running" ? `${label}: rendering ${percent}%` : `${label}: ${status.error || status.state}`;
    if (status.state !== "done") return;
    const list = $("downloads");
    for (const url of status.files.filter((f) => !f.endsWith(".json"))) {
      const name = decodeURIComponent(url.split("/").pop());
      if ([...list.querySelectorAll("a")].some((a) => a.getAttribute("href") === url)) continue;
      list.append(el("li", {}, el("a", { href: url, download: name, textContent: url.replace("/files/", "") })));
    }
  }

  return { index, topic, lesson };
})();
