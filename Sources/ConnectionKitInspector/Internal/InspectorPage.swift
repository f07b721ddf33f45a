/// The inspector's one page: plain HTML, CSS and JavaScript, nothing loaded from elsewhere.
enum InspectorPage {
    /// Scripts and styles only from the page itself; requests only to the inspector.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
        + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let html = #"""
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>ConnectionKit inspector</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>
        :root { --fg:#1d232a; --muted:#69737d; --line:#dfe3e8; --bg:#f6f7f9; --accent:#2f6fdb; --bad:#c9372c;
          --queue:#b8bec6; --dns:#1f9e89; --connect:#e07b00; --tls:#8e44ad; --wait:#2f9e44; --download:#2f6fdb; }
        * { box-sizing: border-box; }
        body { margin:0; font:13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
        header { display:flex; gap:16px; align-items:center; padding:10px 16px; background:#fff; border-bottom:1px solid var(--line); }
        header h1 { font-size:15px; margin:0; }
        header .spacer { flex:1; }
        #status { color:var(--muted); }
        #status.on::before { content:"● "; color:var(--wait); }
        main { padding:12px 16px; display:grid; gap:14px; }
        section { background:#fff; border:1px solid var(--line); border-radius:6px; overflow:hidden; }
        section h2 { font-size:13px; margin:0; padding:8px 10px; border-bottom:1px solid var(--line); display:flex; gap:10px; align-items:center; }
        section h2 small { color:var(--muted); font-weight:normal; }
        .scroll { max-height:320px; overflow:auto; }
        table { width:100%; border-collapse:collapse; }
        th, td { text-align:left; padding:4px 8px; border-bottom:1px solid var(--line); white-space:nowrap; }
        th { position:sticky; top:0; background:#fafbfc; font-weight:600; color:var(--muted); }
        td.url { max-width:420px; overflow:hidden; text-overflow:ellipsis; font-family:ui-monospace, monospace; font-size:12px; }
        td.num { text-align:right; font-variant-numeric:tabular-nums; }
        tr.failed td.status, tr.cancelled td.status, .bad { color:var(--bad); }
        #history-body tr { cursor:pointer; }
        #history-body tr.selected { background:#eef4ff; }
        .progress { width:120px; height:8px; background:#e9ecef; border-radius:4px; overflow:hidden; display:inline-block; vertical-align:middle; }
        .progress span { display:block; height:100%; background:var(--accent); }
        .progress.unknown span { width:100%; opacity:.35; }
        .waterfall { position:relative; width:220px; height:10px; background:#f1f3f5; border-radius:2px; }
        .bar { position:absolute; top:0; height:100%; min-width:2px; }
        .bar-queue { background:var(--queue); } .bar-dns { background:var(--dns); } .bar-connect { background:var(--connect); }
        .bar-tls { background:var(--tls); } .bar-wait { background:var(--wait); } .bar-download { background:var(--download); }
        .legend span { margin-right:10px; color:var(--muted); font-weight:normal; }
        .legend i { display:inline-block; width:10px; height:10px; margin-right:3px; vertical-align:-1px; }
        button { font:inherit; padding:1px 8px; border:1px solid var(--line); border-radius:4px; background:#fff; cursor:pointer; }
        button:hover { border-color:var(--bad); color:var(--bad); }
        input, select { font:inherit; padding:2px 6px; border:1px solid var(--line); border-radius:4px; }
        #detail { padding:10px; display:none; }
        #detail.open { display:block; }
        #detail h3 { font-size:12px; margin:10px 0 4px; color:var(--muted); text-transform:uppercase; }
        #detail pre { background:#f6f8fa; padding:8px; overflow:auto; margin:0; font-size:12px; }
        .empty { color:var(--muted); padding:8px 10px; }
        /* The statistics fit a 1280 px window: headers and the failure kinds wrap, the cancel button stays in view. */
        #stats-table th { white-space:normal; }
        #stats-table th, #stats-table td { padding:4px 6px; }
        #stats-table td.kinds { white-space:normal; min-width:110px; }
        a { color:var(--accent); }
        </style></head>
        <body>
        <header><h1>ConnectionKit inspector</h1><span id="status">connecting…</span><span class="spacer"></span>
        <a id="har" download="connectionkit.har">Download HAR</a><a id="metrics">/metrics</a></header>
        <main>
        <section><h2>Live requests <small id="live-count">0</small></h2>
        <div class="scroll"><table><thead><tr><th>class</th><th>method</th><th>url</th><th>state</th><th>attempt</th>
        <th>progress</th><th>age</th><th></th></tr></thead><tbody id="live-body"></tbody></table>
        <div id="live-more" class="empty"></div></div></section>
        <section><h2>History <small id="history-count">0</small>
        <select id="filter-class"><option value="">every class</option></select>
        <select id="filter-status"><option value="">every status</option><option>2xx</option><option>3xx</option>
        <option>4xx</option><option>5xx</option><option value="failed">failed</option>
        <option value="cancelled">cancelled</option></select>
        <input id="filter-text" type="search" placeholder="filter text">
        <span class="legend"><span><i class="bar-queue"></i>queue</span><span><i class="bar-dns"></i>dns</span>
        <span><i class="bar-connect"></i>connect</span><span><i class="bar-tls"></i>tls</span>
        <span><i class="bar-wait"></i>wait</span><span><i class="bar-download"></i>download</span></span></h2>
        <div class="scroll"><table><thead><tr><th>ended</th><th>class</th><th>method</th><th>status</th>
        <th>try</th><th>duration</th><th>url</th><th>waterfall</th></tr></thead><tbody id="history-body"></tbody></table></div>
        <div id="detail"></div></section>
        <section><h2>Statistics per class <small>since start or reset</small></h2>
        <div class="scroll"><table id="stats-table"><thead><tr><th>class</th><th>requests</th><th>ok</th><th>failed</th><th>cancelled</th>
        <th>error rate</th><th>retries</th><th>p50</th><th>p90</th><th>p99</th><th>max</th><th>sent</th><th>received</th>
        <th>failures by kind</th><th></th></tr></thead><tbody id="stats-body"></tbody></table></div></section>
        </main>
        <script>
        "use strict";
        const token = new URLSearchParams(location.search).get("token") || "";
        const LIVE_SHOWN = 500, HISTORY_SHOWN = 500;
        const live = new Map();
        let history = [], stats = [], selected = null, liveLoaded = false, liveQueued = false, historyTimer = null;
        // Loads of /api/live in flight: the events that arrive meanwhile win over the list they return.
        const pendingLoads = new Set(), liveRows = new Map(), historyRows = new Map();
        const $ = (id) => document.getElementById(id);
        const esc = (s) => String(s ?? "").replace(/[&<>"']/g,
          (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
        const ms = (v) => v >= 1000 ? (v / 1000).toFixed(2) + " s" : v.toFixed(1) + " ms";
        const sec = (v) => ms(v * 1000);
        const bytes = (n) => n >= 1048576 ? (n / 1048576).toFixed(1) + " MiB" : n >= 1024 ? (n / 1024).toFixed(1) + " KiB" : n + " B";
        async function api(path, options) {
          const response = await fetch(path, Object.assign({ headers: { "X-Inspector-Token": token } }, options || {}));
          if (!response.ok) throw new Error(path + ": " + response.status);
          return response.json();
        }
        $("har").href = "/api/har?token=" + encodeURIComponent(token);
        $("metrics").href = "/metrics?token=" + encodeURIComponent(token);

        function progressOf(r) {
          if (r.expectedReceived) return Math.min(1, r.received / r.expectedReceived);
          if (r.expectedSent && r.received === 0) return Math.min(1, r.sent / r.expectedSent);
          return null;
        }
        // Rows are kept per request and updated in place, so that a button under the pointer stays the same element.
        function liveRow(r, now) {
          let tr = liveRows.get(r.id);
          if (!tr) {
            tr = document.createElement("tr");
            tr.dataset.id = r.id;
            tr.dataset.class = r.type;
            tr.innerHTML = "<td>" + esc(r.type) + '</td><td class="method"></td><td class="url"></td><td class="state"></td><td class="num attempt"></td><td><span class="progress"><span></span></span> '
              + '<small class="bytes"></small></td><td class="num age"></td><td><button class="cancel" data-id="' + esc(r.id)
              + '">cancel</button></td>';
            liveRows.set(r.id, tr);
          }
          // A request's URL and attempt arrive with its `sending` event, after the row was made from `started`.
          const url = tr.querySelector(".url");
          if (url.textContent !== (r.url || "")) { url.textContent = r.url || ""; url.title = r.url || ""; }
          tr.querySelector(".method").textContent = r.method;
          const p = progressOf(r);
          tr.querySelector(".progress").className = p === null ? "progress unknown" : "progress";
          tr.querySelector(".progress span").style.width = p === null ? "" : (p * 100).toFixed(1) + "%";
          tr.querySelector(".bytes").textContent = bytes(r.received);
          tr.querySelector(".state").textContent = r.state;
          tr.querySelector(".attempt").textContent = r.attempt;
          tr.querySelector(".age").textContent = r.started ? ms(Math.max(0, now - r.started)) : "-";
          return tr;
        }
        function place(body, rows) {
          rows.forEach((tr, index) => { if (body.children[index] !== tr) body.insertBefore(tr, body.children[index] || null); });
          while (body.children.length > rows.length) body.lastElementChild.remove();
        }
        function renderLive() {
          liveQueued = false;
          const rows = [...live.values()].sort((a, b) => (a.started || 0) - (b.started || 0));
          const now = Date.now();
          place($("live-body"), rows.slice(0, LIVE_SHOWN).map((r) => liveRow(r, now)));
          for (const id of liveRows.keys()) if (!live.has(id)) liveRows.delete(id);
          $("live-count").textContent = rows.length;
          $("live-more").textContent = rows.length > LIVE_SHOWN ? "and " + (rows.length - LIVE_SHOWN) + " more" : rows.length ? "" : "No live request.";
          // The first frame that shows the loaded list (read by the browser test and the benchmark).
          if (liveLoaded && !document.body.dataset.firstRender) document.body.dataset.firstRender = String(Math.round(performance.now()));
        }
        function queueLive() { if (!liveQueued) { liveQueued = true; requestAnimationFrame(renderLive); } }
        async function loadLive() {
          const load = { events: new Map() };
          pendingLoads.add(load);
          try {
            const rows = await api("/api/live");
            live.clear();
            for (const r of rows) live.set(r.id, r);
            for (const [id, r] of load.events) { if (r) live.set(id, r); else live.delete(id); }
            liveLoaded = true;
            queueLive();
          } finally {
            pendingLoads.delete(load);
          }
        }

        function matches(h) {
          const r = h.record, type = $("filter-class").value, status = $("filter-status").value;
          const text = $("filter-text").value.trim().toLowerCase();
          if (type && r.typeName !== type) return false;
          if (status === "failed" || status === "cancelled") { if (r.outcome !== status) return false; }
          else if (status && String(r.statusCode || "").charAt(0) !== status.charAt(0)) return false;
          if (text) {
            const hay = [r.typeName, r.method, r.redactedURL, r.statusCode, r.errorMessage, r.outcome].join(" ").toLowerCase();
            if (!hay.includes(text)) return false;
          }
          return true;
        }
        function waterfall(h) {
          const total = Math.max(1, ...h.phases.map((p) => p.start + p.duration));
          return '<div class="waterfall" data-phases="' + h.phases.length + '">' + h.phases.map((p) =>
            '<span class="bar bar-' + esc(p.name) + '" title="' + esc(p.name) + " " + ms(p.duration) + '" style="left:'
            + (p.start / total * 100).toFixed(2) + "%;width:" + (p.duration / total * 100).toFixed(2) + '%"></span>').join("") + "</div>";
        }
        function renderHistory() {
          const rows = history.filter(matches);
          $("history-count").textContent = rows.length + " of " + history.length;
          const shown = rows.slice(0, HISTORY_SHOWN).map((h) => {
            const r = h.record;
            let tr = historyRows.get(r.identifier);
            if (!tr) {
              tr = document.createElement("tr");
              tr.dataset.id = r.identifier;
              tr.innerHTML = "<td>" + new Date(r.dateFinished).toLocaleTimeString() + "</td><td>" + esc(r.typeName) + "</td><td>"
                + esc(r.method) + '</td><td class="status">' + esc(r.statusCode ?? r.outcome) + fromCache(r) + '</td><td class="num">' + r.attempts
                + '</td><td class="num">' + ms(r.dateFinished - r.dateStarted) + '</td><td class="url" title="' + esc(r.redactedURL)
                + '">' + esc(r.redactedURL) + "</td><td>" + waterfall(h) + "</td>";
              historyRows.set(r.identifier, tr);
            }
            tr.className = r.outcome + (selected === r.identifier ? " selected" : "");
            return tr;
          });
          place($("history-body"), shown);
          const kept = new Set(history.map((h) => h.record.identifier));
          for (const id of historyRows.keys()) if (!kept.has(id)) historyRows.delete(id);
          renderDetail();
        }
        // Where an answer came from when it was the HTTP cache: " (cache)", " (revalidated)", " (staleCache)".
        function fromCache(r) { return r.responseSource && r.responseSource !== "network" ? " (" + esc(r.responseSource) + ")" : ""; }
        function headerTable(fields) {
          if (!fields.length) return '<div class="empty">none</div>';
          return "<table>" + fields.map((f) => "<tr><td>" + esc(f.name) + "</td><td>" + esc(f.value) + "</td></tr>").join("") + "</table>";
        }
        function renderDetail() {
          const h = history.find((x) => x.record.identifier === selected), box = $("detail");
          if (!h) { box.className = ""; box.innerHTML = ""; return; }
          const r = h.record;
          const attempts = r.metrics.map((m) => "attempt " + m.attempt + ": " + (m.end ? ms(m.end - m.start) : "-")
            + (m.responseStart ? ", first byte after " + ms(m.responseStart - m.start) : ", no response")
            + (m.httpVersion ? ", " + m.httpVersion : "") + (m.isReusedConnection === undefined ? "" : m.isReusedConnection ? ", reused connection" : ", new connection")
            + (m.remoteAddress ? ", " + m.remoteAddress : "")).join("\n");
          box.className = "open";
          box.innerHTML = "<strong>" + esc(r.typeName) + "</strong> " + esc(r.method) + " " + esc(r.redactedURL)
            + "<br>" + esc(r.outcome) + (r.statusCode ? " " + r.statusCode : "") + fromCache(r) + (r.errorMessage ? ' — <span class="bad">' + esc(r.errorKind) + ": " + esc(r.errorMessage) + "</span>" : "")
            + "<br>sent " + bytes(r.requestBodySize) + ", received " + bytes(r.responseBodySize) + ", " + r.attempts + " attempt(s), id " + esc(r.identifier)
            + "<h3>Attempts</h3><pre>" + esc(attempts || "none") + "</pre>"
            + "<h3>Request headers</h3>" + headerTable(r.requestHeaderFields)
            + "<h3>Response headers</h3>" + headerTable(r.responseHeaderFields)
            + (r.responseBodyPreview ? "<h3>Response body</h3><pre>" + esc(r.responseBodyPreview) + "</pre>" : "")
            + '<h3>cURL</h3><pre id="detail-curl">' + esc(h.curl) + "</pre>";
        }
        async function loadHistory() {
          historyTimer = null;
          history = await api("/api/history?limit=1000");
          refreshClasses();
          renderHistory();
        }
        function queueHistory() { if (!historyTimer) historyTimer = setTimeout(() => { loadHistory(); loadStats(); }, 300); }

        function renderStats() {
          $("stats-body").innerHTML = stats.map((s) => '<tr data-class="' + esc(s.typeName) + '"><td>' + esc(s.typeName) + '</td><td class="num">' + s.requests
            + '</td><td class="num">' + s.successes + '</td><td class="num">' + s.failures + '</td><td class="num">' + s.cancellations
            + '</td><td class="num">' + (s.requests ? (s.failures / s.requests * 100).toFixed(1) : "0.0") + ' %</td><td class="num">' + s.retries
            + '</td><td class="num">' + sec(s.latency.p50) + '</td><td class="num">' + sec(s.latency.p90) + '</td><td class="num">' + sec(s.latency.p99)
            + '</td><td class="num">' + sec(s.latency.max) + '</td><td class="num">' + bytes(s.bytesSent) + '</td><td class="num">' + bytes(s.bytesReceived)
            + '</td><td class="kinds">' + esc(Object.entries(s.failuresByKind).map(([k, v]) => k + " " + v).join(", "))
            + '</td><td><button class="cancel-class" data-class="' + esc(s.typeName) + '">cancel live</button></td></tr>').join("");
        }
        async function loadStats() { stats = await api("/api/statistics"); renderStats(); refreshClasses(); }
        function refreshClasses() {
          const select = $("filter-class"), current = select.value;
          const names = new Set([...stats.map((s) => s.typeName), ...history.map((h) => h.record.typeName)]);
          select.innerHTML = '<option value="">every class</option>' + [...names].sort().map((n) =>
            "<option" + (n === current ? " selected" : "") + ">" + esc(n) + "</option>").join("");
        }

        async function cancel(query) {
          await api("/api/cancel?" + query, { method: "POST", headers: { "X-Inspector-Token": token } });
        }
        document.addEventListener("click", (event) => {
          const target = event.target;
          if (target.matches("button.cancel")) { cancel("id=" + encodeURIComponent(target.dataset.id)); return; }
          if (target.matches("button.cancel-class")) { cancel("class=" + encodeURIComponent(target.dataset.class)); return; }
          const row = target.closest("#history-body tr");
          if (row) { selected = selected === row.dataset.id ? null : row.dataset.id; renderHistory(); }
        });
        for (const id of ["filter-class", "filter-status", "filter-text"]) $(id).addEventListener("input", renderHistory);

        function connect() {
          const events = new EventSource("/api/events?token=" + encodeURIComponent(token));
          events.onopen = () => { $("status").textContent = "live"; $("status").className = "on"; loadLive(); };
          events.onerror = () => { $("status").textContent = "reconnecting…"; $("status").className = ""; };
          events.addEventListener("resync", () => { loadLive(); queueHistory(); });
          events.onmessage = (message) => {
            const event = JSON.parse(message.data), r = event.request;
            const ended = event.kind === "finished" || event.kind === "failed" || event.kind === "cancelled";
            if (ended) { live.delete(r.id); queueHistory(); } else { live.set(r.id, r); }
            for (const load of pendingLoads) load.events.set(r.id, ended ? null : r);
            queueLive();
          };
        }
        setInterval(queueLive, 1000);
        loadLive();
        loadHistory();
        loadStats();
        connect();
        </script>
        </body></html>
        """#
}
