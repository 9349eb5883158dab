// The pipeline page: reads GET /pipeline every second (the projector samples PostgreSQL and Kafka when asked),
// sends the "Try it" commands to the command API, and the operator's calls to this projector; with
// ./ledger-lab --processes it also reads the lab's processes and sends its faults to the lab's port. No build step.
(() => {
  'use strict';
  const KEEP = 300; // points per chart: five minutes at one reading a second
  const $ = id => document.getElementById(id);
  const state = { after: null, commandApi: null, lab: null, operator: null, charts: {}, runKind: null, journey: null,
    answers: null, recent: [], quietChecked: null, checking: false };
  const series = { t: [], written: [], published: [], applied: [], lag: {}, slot: {} };

  // -1 or null: the projector could not read that figure this time (the reading's errors say why).
  const known = n => n !== null && n !== undefined && n >= 0;
  const fmt = n => known(n) ? Number(n).toLocaleString('en') : '?';
  const perSecond = n => known(n) ? n.toFixed(1) : '?';
  const orNull = n => known(n) ? n : null;
  function cells(row, values) { // text only: nothing from the server is parsed as HTML
    for (const value of values) row.insertCell().textContent = value;
    return row;
  }
  const seconds = at => (typeof at === 'number' ? at : Date.parse(at) / 1000);
  const time = at => at ? new Date(at).toISOString().substring(11, 23) : '–';
  const uuid = () => (crypto.randomUUID ? crypto.randomUUID()
      : 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, c => {
        const r = Math.random() * 16 | 0; return (c === 'x' ? r : (r & 3 | 8)).toString(16); }));

  async function call(url, options = {}) {
    const response = await fetch(url, options);
    const text = await response.text();
    let body = null;
    try { body = text ? JSON.parse(text) : null; } catch (e) { body = text; }
    return { status: response.status, ok: response.ok, body, headers: response.headers };
  }

  function operatorHeaders() {
    return state.operator ? { Authorization: 'Basic ' + btoa('operator:' + state.operator) } : {};
  }

  // ---- readings and charts ----
  function chart(id, labels) {
    const element = $(id);
    const width = Math.max(320, element.clientWidth || 440);
    const palette = ['#1f6feb', '#d4a72c', '#1a7f37', '#a3001b', '#8250df', '#bf3989', '#0a7ea4', '#6e7781'];
    const opts = {
      width, height: 220,
      series: [{}].concat(labels.map((label, i) => ({ label, stroke: palette[i % palette.length], width: 1.5 }))),
      axes: [{}, { size: 72 }],
      scales: { x: { time: true } },
    };
    element.innerHTML = '';
    return { plot: new uPlot(opts, [[], ...labels.map(() => [])], element), labels };
  }

  function draw(key, id, labels, columns) {
    let current = state.charts[key];
    if (!current || current.labels.join() !== labels.join()) {
      current = state.charts[key] = chart(id, labels);
    }
    current.plot.setData([series.t, ...columns]);
    // Points drawn: readings where at least one of the chart's series has a value.
    $(id).dataset.points = String(series.t.filter((_, i) => columns.some(c => c[i] !== null)).length);
  }

  function record(sample) {
    series.t.push(seconds(sample.at));
    const r = sample.rates || { written: null, published: null, applied: null };
    series.written.push(orNull(r.written)); series.published.push(orNull(r.published));
    series.applied.push(orNull(r.applied));
    const n = series.t.length;
    for (const p of sample.partitions) {
      const key = 'p' + p.partition;
      series.lag[key] = series.lag[key] || new Array(n - 1).fill(null);
      series.lag[key].push(orNull(p.lag));
    }
    for (const s of sample.slots) {
      series.slot[s.name] = series.slot[s.name] || new Array(n - 1).fill(null);
      series.slot[s.name].push(orNull(s.lagBytes));
    }
    for (const column of [...Object.values(series.lag), ...Object.values(series.slot)]) {
      while (column.length < n) column.push(null);
    }
    if (n > KEEP) {
      for (const column of [series.t, series.written, series.published, series.applied,
        ...Object.values(series.lag), ...Object.values(series.slot)]) column.splice(0, n - KEEP);
    }
  }

  function show(sample, readings) {
    const r = sample.rates;
    $('rate-written').textContent = r ? perSecond(r.written) : '–';
    $('rate-published').textContent = r ? perSecond(r.published) : '–';
    $('rate-applied').textContent = r ? perSecond(r.applied) : '–';
    $('outbox-head').textContent = fmt(sample.outboxHead);
    $('published').textContent = fmt(sample.published);
    $('lag').textContent = fmt(sample.lag);
    $('applied').textContent = fmt(sample.applied);
    $('parked').textContent = fmt(sample.parked);
    $('dead-lettered').textContent = fmt(sample.deadLettered);
    $('duplicates').textContent = fmt(sample.duplicates);
    $('slots').replaceChildren(...(sample.slots.length === 0 ? [document.createTextNode('no slot yet')]
      : sample.slots.map(s => {
        const line = document.createElement('div');
        line.textContent = `${s.name}: ${s.active ? 'active' : 'inactive'}, ${s.walStatus || '?'}, `
          + `${fmt(s.lagBytes)} B behind`;
        return line;
      })));
    const waiting = new Map(readings.pauses.filter(p => p.ongoing).map(p => [p.partition, p.seconds]));
    const tbody = document.querySelector('#partitions tbody');
    tbody.replaceChildren();
    for (const p of sample.partitions) {
      cells(tbody.insertRow(), [p.partition, fmt(p.logEndOffset), fmt(p.storedOffset), fmt(p.lag), fmt(p.applied),
        fmt(p.duplicates), waiting.has(p.partition) ? waiting.get(p.partition).toFixed(1) + ' s' : '']);
    }
    showPauses(readings.pauses);
    $('errors').hidden = sample.errors.length === 0;
    $('errors').textContent = sample.errors.join('; ');
    $('status-line').textContent = 'last reading ' + time(Date.parse(sample.at)) + ' UTC';
  }

  // A pause: records waiting in a partition whose stored offset does not move (Pauses, on the projector).
  function showPauses(pauses) {
    const one = p => `partition ${p.partition}: ${p.seconds.toFixed(1)} s (${time(Date.parse(p.from))} → `
      + (p.ongoing ? 'still waiting)' : time(Date.parse(p.to)) + ')');
    if (pauses.length === 0) {
      $('pauses').textContent = 'none in the readings kept';
      return;
    }
    const longest = pauses.reduce((a, b) => (b.seconds > a.seconds ? b : a));
    $('pauses').textContent = `longest ${one(longest)}; latest ${pauses.slice(-3).reverse().map(one).join('; ')}; `
      + `${pauses.length} in the readings kept`;
    $('pauses').dataset.longest = String(longest.seconds);
  }

  // The command API's answers per second by outcome, from its own counters (ledger_commands_total, Prometheus text).
  async function answers() {
    if (!state.commandApi) return;
    let text;
    try {
      const response = await fetch(state.commandApi + '/actuator/prometheus');
      text = response.ok ? await response.text() : null;
    } catch (e) {
      text = null;
    }
    if (text === null) {
      state.answers = null;
      ['answers-accepted', 'answers-refused', 'answers-failed'].forEach(id => { $(id).textContent = '?'; });
      $('answers-failed-types').textContent = '(the command API does not answer)';
      return;
    }
    const now = { at: Date.now(), outcome: {}, failed: {} };
    for (const line of text.split('\n')) {
      const m = /^ledger_commands_total\{([^}]*)\}\s+(\S+)/.exec(line);
      if (!m) continue;
      const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map(l => [l[1], l[2]]));
      const n = Number(m[2]);
      now.outcome[labels.outcome] = (now.outcome[labels.outcome] || 0) + n;
      if (labels.outcome === 'failed') now.failed[labels.type] = (now.failed[labels.type] || 0) + n;
    }
    const before = state.answers;
    state.answers = now;
    if (!before) return;
    const seconds = (now.at - before.at) / 1000;
    // A counter lower than before: a new command API process, counting from 0.
    const rate = (a, b) => ((b || 0) >= (a || 0) ? (b || 0) - (a || 0) : (b || 0)) / seconds;
    const outcome = o => rate(before.outcome[o], now.outcome[o]);
    $('answers-accepted').textContent = (outcome('accepted') + outcome('replayed')).toFixed(1);
    $('answers-refused').textContent = (outcome('refused') + outcome('version-conflict')).toFixed(1);
    const failed = outcome('failed');
    $('answers-failed').textContent = failed.toFixed(1);
    $('answers-failed-types').textContent = Object.keys(now.failed)
      .map(type => [type, rate(before.failed[type], now.failed[type])]).filter(([, r]) => r > 0)
      .map(([type, r]) => `${type} ${r.toFixed(1)}/s`).join(', ');
    $('stage-command-api').classList.toggle('failing', failed > 0);
  }
  setInterval(answers, 1000);

  // Once nothing moves for 5 s (no lag, every slot active), the operator's page asks the invariant check by itself.
  const QUIET_MS = 5000;
  function quietFor(sample) {
    state.recent.push(sample);
    while (state.recent.length > 1 && Date.parse(sample.at) - Date.parse(state.recent[1].at) >= QUIET_MS) {
      state.recent.shift();
    }
    const first = state.recent[0];
    const still = state.recent.every(r => r.errors.length === 0 && r.lag === 0 && r.outboxHead === first.outboxHead
      && r.published === first.published && r.applied === first.applied && r.slots.length > 0
      && r.slots.every(slot => slot.active));
    return still && Date.parse(sample.at) - Date.parse(first.at) >= QUIET_MS ? first : null;
  }

  async function checkWhenQuiet(sample) {
    const quiet = quietFor(sample);
    if (!quiet || !state.operator || state.checking) return;
    const key = `${quiet.outboxHead}/${quiet.published}/${quiet.applied}`;
    const last = state.quietChecked;
    // Once per quiet stretch; again after 5 s while the last answer was not ok.
    if (last && last.key === key && (last.ok || Date.now() - last.at < QUIET_MS)) return;
    const ok = await checkInvariants('asked by itself: quiet for 5 s');
    state.quietChecked = { key, ok, at: Date.now() };
  }

  async function poll() {
    try {
      const answer = await call('/pipeline' + (state.after ? '?after=' + encodeURIComponent(state.after) : ''));
      if (answer.ok) {
        const readings = answer.body;
        if (state.commandApi === null) {
          state.lab = readings.labUrl ? readings.labUrl.replace(/\/$/, '') : null;
          $('break').hidden = !state.lab;
          state.commandApi = readings.commandApiUrl.replace(/\/$/, '');
          $('command-api-url').textContent = state.commandApi;
          $('link-commands').href = state.commandApi + '/actuator/prometheus';
          $('topic-name').textContent = readings.topic;
          $('partitions-topic').textContent = readings.topic;
          $('dlt-name').textContent = readings.deadLetterTopic;
          $('group-id').textContent = readings.groupId;
        }
        for (const sample of readings.samples) {
          record(sample);
          state.after = sample.at;
          checkWhenQuiet(sample);
        }
        const last = readings.samples[readings.samples.length - 1];
        if (last) {
          show(last, readings);
          draw('throughput', 'throughput-chart', ['written', 'published', 'applied'],
            [series.written, series.published, series.applied]);
          const lagKeys = Object.keys(series.lag).sort((a, b) => a.substring(1) - b.substring(1));
          draw('lag', 'lag-chart', lagKeys, lagKeys.map(k => series.lag[k]));
          const slotKeys = Object.keys(series.slot).sort();
          draw('slot', 'slot-chart', slotKeys, slotKeys.map(k => series.slot[k]));
        }
      } else {
        $('status-line').textContent = 'GET /pipeline answered ' + answer.status;
      }
    } catch (e) {
      $('status-line').textContent = 'the projector does not answer: ' + e.message;
    }
    setTimeout(poll, 1000);
  }

  // ---- try it ----
  function answered(answer) {
    $('command-status').textContent = String(answer.status);
    $('problem-type').textContent = answer.ok ? '' : ((answer.body && answer.body.type) || '');
    $('command-result').textContent = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body, null, 1);
  }

  async function command(path, body) {
    state.journey = null; // the journey shown is the last answered command's
    for (const stage of ['committed', 'published', 'applied']) mark(stage, null, '', true);
    $('command-status').textContent = '…';
    try {
      const answer = await call(state.commandApi + path, { method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': uuid() }, body: JSON.stringify(body) });
      answered(answer);
      return answer;
    } catch (e) {
      $('command-status').textContent = 'not sent';
      $('command-result').textContent = 'the command API at ' + state.commandApi + ' does not answer: ' + e.message;
      return null;
    }
  }

  $('open-form').addEventListener('submit', async event => {
    event.preventDefault();
    const answer = await command('/accounts', { owner: $('owner').value });
    if (answer && answer.ok) {
      $('account-id').value = answer.body.accountId;
      follow(answer.body.accountId, answer.body.version);
    }
  });

  $('move-form').addEventListener('submit', async event => {
    event.preventDefault();
    const kind = event.submitter ? event.submitter.dataset.kind : 'deposits';
    const amount = Number($('amount').value);
    const answer = await command('/accounts/' + encodeURIComponent($('account-id').value.trim()) + '/' + kind,
      { amount: Number.isFinite(amount) ? amount : $('amount').value });
    if (answer && answer.ok) follow(answer.body.accountId, answer.body.version);
  });

  function follow(accountId, version) {
    const token = {};
    state.journey = token;
    for (const stage of ['committed', 'published', 'applied']) mark(stage, null, '', true);
    $('projected-balance').textContent = '–';
    const url = '/pipeline/events/' + accountId + '/' + version;
    $('journey-link').href = url;
    $('journey-link').textContent = 'GET ' + url;
    const started = Date.now();
    const step = async () => {
      if (state.journey !== token) return;
      const answer = await call(url).catch(() => null);
      const j = answer && answer.ok ? answer.body : null;
      if (j) {
        mark('committed', j.committed && time(Date.parse(j.committed.occurredAt)),
          j.committed && `${j.committed.type}, position ${j.committed.position}`);
        mark('published', j.published && time(Date.parse(j.published.at)),
          j.published ? `partition ${j.published.partition}, offset ${j.published.offset}, `
            + `${j.published.millisAfterCommit >= 0 ? '+' : ''}${j.published.millisAfterCommit} ms`
            : (j.error || (j.partition !== null ? `waiting; it goes to partition ${j.partition}` : '')));
        mark('applied', j.applied && time(Date.parse(j.applied.at)),
          j.applied && `version ${j.applied.version}` + (j.applied.lastApplied ? '' : ' (later events applied since)'));
        if (j.applied) $('projected-balance').textContent = fmt(j.applied.balance) + ' at version ' + j.applied.version;
      }
      if (!(j && j.published && j.applied) && Date.now() - started < 60000) setTimeout(step, 250);
    };
    step();
  }

  function mark(stage, when, where, reset) {
    const row = $('journey-' + stage);
    if (reset) {
      row.classList.remove('done');
      row.querySelector('.when').textContent = '…';
    } else if (when) {
      row.classList.add('done');
      row.querySelector('.when').textContent = when;
    }
    row.querySelector('.where').textContent = where || '';
  }

  // ---- operate ----
  const operatorButtons = ['start-replay', 'start-rebuild', 'cancel-rebuild', 'check-invariants'];

  $('login-form').addEventListener('submit', async event => {
    event.preventDefault();
    const password = $('operator-password').value;
    const answer = await call('/pipeline/operator',
      { headers: { Authorization: 'Basic ' + btoa('operator:' + password) } });
    if (answer.ok) {
      state.operator = password;
      $('operator-state').textContent = 'logged in as operator';
    } else {
      state.operator = null;
      $('operator-state').textContent = 'refused: ' + answer.status + ' ' + ((answer.body && answer.body.type) || '');
    }
    operatorButtons.forEach(id => { $(id).disabled = !state.operator; });
    document.querySelectorAll('#break button').forEach(button => { button.disabled = !state.operator; });
    parked();
  });

  // ---- the lab's processes and faults: only with ./ledger-lab --processes, on the lab's own port ----
  // Its processes, read every second from the lab (not from this projector, which may be the one broken).
  const STAGES = { 'command-api': ['stage-command-api'], 'outbox-relay': ['stage-relay'],
    projector: ['stage-projector'], postgres: ['stage-outbox', 'stage-balances'] };
  async function processes() {
    if (!state.lab) return;
    const down = new Set();
    try {
      const answer = await call(state.lab + '/processes');
      const held = s => (s.partitions === undefined ? '' : s.partitions === null ? '?' : s.partitions.join(', '));
      const redelivered = s => (s.redelivered === undefined ? '' : s.redelivered === null ? '?' : s.redelivered);
      const rows = answer.body.services.map(s => [s.service, s.pid, s.port, s.state, s.restarts, held(s),
        redelivered(s)])
        .concat([['postgres', answer.body.postgres.pid, '', answer.body.postgres.state, '', '', '']])
        .concat((answer.body.kafkaNodes || []).map(n => ['kafka-node-' + n.node, n.pid, '', n.state, '', '', '']));
      const tbody = document.querySelector('#processes tbody');
      tbody.replaceChildren();
      for (const row of rows) {
        const tr = cells(tbody.insertRow(), row);
        tr.dataset.process = row[0];
        tr.dataset.state = row[3];
        // A stage is down while its process is not running (one member of several projectors: not down).
        const kind = row[0].replace(/-\d+$/, '');
        if (row[3] !== 'running' && (kind !== 'projector' || row[0] === 'projector')) down.add(kind);
      }
    } catch (e) {
      $('break-watch').textContent = 'the lab does not answer: ' + e.message;
    }
    for (const [kind, ids] of Object.entries(STAGES)) {
      ids.forEach(id => $(id).classList.toggle('down', down.has(kind)));
    }
  }
  document.querySelectorAll('#break button').forEach(button => button.addEventListener('click', async () => {
    const path = '/break/' + button.dataset.fault + '/' + button.dataset.service;
    $('break-did').textContent = 'POST ' + path + '…';
    $('break-watch').textContent = '';
    try {
      const answer = await call(state.lab + path, { method: 'POST', headers: operatorHeaders() });
      const body = answer.body || {};
      $('break-did').textContent = answer.ok ? body.did : answer.status + ' ' + (body.type || '') + ': '
        + (body.detail || '');
      $('break-watch').textContent = answer.ok ? body.watch : '';
    } catch (e) {
      $('break-did').textContent = 'the lab does not answer: ' + e.message;
    }
    processes();
  }));
  setInterval(processes, 1000);

  async function operate(method, path) {
    const answer = await call(path, { method, headers: operatorHeaders() });
    $('operate-result').textContent = method + ' ' + path + ' → ' + answer.status + '\n'
      + (typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body, null, 1));
    return answer;
  }

  const start = kind => async () => {
    const answer = await operate('POST', '/projection/' + kind);
    if (answer.ok || answer.status === 409) { state.runKind = kind; progress(); }
  };
  let following = 0; // one progress loop at a time: a newer one ends the older
  $('start-replay').addEventListener('click', start('replay'));
  $('start-rebuild').addEventListener('click', start('rebuild'));
  $('cancel-rebuild').addEventListener('click', async () => {
    await operate('DELETE', '/projection/rebuild');
    state.runKind = 'rebuild';
    progress();
  });
  // The verdict, and whether it was ok; `how` says who asked (the button, or the page once quiet).
  async function checkInvariants(how) {
    state.checking = true;
    $('invariants-verdict').textContent = 'checking…';
    try {
      const answer = await operate('GET', '/projection/invariants');
      const report = answer.body;
      $('invariants-verdict').textContent = (answer.ok
        ? (report.ok ? 'ok: ' + fmt(report.accounts) + ' accounts, ' + fmt(report.eventsStored) + ' events stored, '
            + fmt(report.eventsApplied) + ' applied' : report.violations.length + ' violation(s)')
        : 'refused: ' + answer.status + ' ' + ((report && report.type) || '')) + (how ? ' (' + how + ')' : '');
      $('invariants-verdict').dataset.how = how || 'button';
      return answer.ok && report.ok;
    } catch (e) {
      $('invariants-verdict').textContent = 'the projector does not answer: ' + e.message;
      return false;
    } finally {
      state.checking = false;
    }
  }
  $('check-invariants').addEventListener('click', () => checkInvariants(null));

  async function progress() {
    if (!state.runKind) return;
    const loop = ++following;
    const answer = await call('/projection/' + state.runKind).catch(() => null);
    if (loop !== following) return;
    if (!answer) { setTimeout(() => { if (loop === following) progress(); }, 1000); return; }
    if (answer.ok) {
      const p = answer.body;
      $('run-progress').value = p.percent;
      $('run-state').textContent = `${p.kind} #${p.id} ${p.state}: ${p.percent.toFixed(1)} %, `
        + `${fmt(Math.round(p.eventsPerSecond))} events/s, ` + (p.estimatedSecondsLeft === null ? 'time left unknown'
          : p.estimatedSecondsLeft.toFixed(1) + ' s left') + (p.detail ? ' (' + p.detail + ')' : '');
      $('run-state').dataset.state = p.state;
      $('run-state').dataset.id = String(p.id);
      if (p.state === 'running') setTimeout(() => { if (loop === following) progress(); }, 500);
    }
  }

  async function parked() {
    const answer = await call('/projection/parked').catch(() => null);
    if (answer && answer.ok) {
      const tbody = document.querySelector('#parked-accounts tbody');
      tbody.replaceChildren();
      for (const p of answer.body) {
        const row = cells(tbody.insertRow(), [p.accountId, p.expectedVersion, p.receivedVersion, p.reason]);
        const path = '/projection/parked/' + encodeURIComponent(p.accountId) + '/release';
        const release = document.createElement('button');
        release.textContent = 'Release';
        release.disabled = !state.operator;
        release.title = 'POST ' + path;
        release.addEventListener('click', async () => { await operate('POST', path); parked(); });
        row.insertCell().appendChild(release);
      }
    }
  }

  (async () => { // the latest run of either kind, as the page opens
    let latest = null;
    for (const kind of ['rebuild', 'replay']) {
      const answer = await call('/projection/' + kind).catch(() => null);
      if (answer && answer.ok && (!latest || answer.body.id > latest.id)) latest = { id: answer.body.id, kind };
    }
    if (latest) { state.runKind = latest.kind; progress(); }
  })();
  setInterval(parked, 2000);
  parked();
  poll();
})();
