// The approval page's script (runtime/ocpweb): live updates from the
// server-sent events of ./events, decisions sent without leaving the page,
// and the time left on each write. It inserts only HTML the handler drew;
// every text a person reads was escaped there.
'use strict';
(() => {
  const policy = window.trustedTypes
    ? window.trustedTypes.createPolicy('ocpweb', { createHTML: (s) => s })
    : { createHTML: (s) => s };
  const list = document.getElementById('confirms');
  const none = document.getElementById('none');
  const live = document.getElementById('live');
  if (!list) return;

  const cards = () => Array.from(list.querySelectorAll('section.confirm'));
  const cardOf = (id) => cards().find((c) => c.dataset.id === id) || null;

  function setLive(text, bad) {
    live.textContent = text;
    live.classList.toggle('bad', bad);
  }

  function updateNone() {
    none.hidden = cards().some((c) => !c.classList.contains('ended'));
  }

  function say(card, text, kind) {
    const s = card.querySelector('.status');
    s.textContent = text;
    s.className = 'status ' + kind;
  }

  function setButtons(card, on) {
    for (const b of card.querySelectorAll('form.decide button')) b.disabled = !on;
  }

  function format(ms) {
    const s = Math.ceil(ms / 1000);
    if (s <= 0) return 'none: expired';
    if (s < 60) return s + 's';
    const pad = (n) => String(n).padStart(2, '0');
    if (s < 3600) return Math.floor(s / 60) + 'm ' + pad(s % 60) + 's';
    return Math.floor(s / 3600) + 'h ' + pad(Math.floor(s / 60) % 60) + 'm';
  }

  function tick() {
    const now = performance.now();
    for (const card of cards()) {
      if (card.classList.contains('ended')) continue;
      const left = Number(card.dataset.deadline) - now;
      card.querySelector('.left').textContent = format(left);
      if (left <= 0 && !card.classList.contains('expired')) {
        card.classList.add('expired');
        setButtons(card, false);
      }
    }
  }

  async function decide(card, form, submitter) {
    const body = new URLSearchParams(new FormData(form, submitter));
    setButtons(card, false);
    card.classList.add('deciding');
    say(card, 'Sending your decision…', 'busy');
    let status, res;
    try {
      const r = await fetch(form.getAttribute('action'), {
        method: 'POST',
        body,
        headers: { Accept: 'application/json' },
        credentials: 'same-origin',
        cache: 'no-store',
        redirect: 'error',
      });
      status = r.status;
      res = await r.json();
    } catch (e) {
      res = { ok: false, message: 'Your decision could not be sent (the connection failed), so nothing is known to be decided. Try again.' };
      status = 0;
    }
    card.classList.remove('deciding');
    say(card, res.message, res.ok ? 'ok' : 'refused');
    if (res.ok) card.classList.add('decided');
    if (card.classList.contains('ended')) settle(card);
    // Only a Hub that could not be reached may answer otherwise later.
    else if (!res.ok && (status === 503 || status === 0)) setButtons(card, true);
  }

  function arm(card) {
    card.dataset.deadline = String(performance.now() + Number(card.dataset.leftMs));
    const form = card.querySelector('form.decide');
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      decide(card, form, ev.submitter);
    });
  }

  function add(html) {
    const t = document.createElement('template');
    t.innerHTML = policy.createHTML(html);
    const card = t.content.firstElementChild;
    if (!card || cardOf(card.dataset.id)) return;
    list.append(card);
    arm(card);
  }

  // end marks the card's confirm as ended, saying how with text, once no
  // decision of this page is on its way.
  function end(card, text) {
    if (card.classList.contains('ended')) return;
    card.classList.add('ended');
    card.dataset.outcome = text;
    setButtons(card, false);
    if (!card.classList.contains('deciding')) settle(card);
  }

  // settle puts how an ended card's confirm ended in place of its buttons,
  // unless this page's own decision, accepted, already says it.
  function settle(card) {
    const form = card.querySelector('form.decide');
    if (!form) return;
    if (card.classList.contains('decided')) {
      form.remove();
      return;
    }
    const p = document.createElement('p');
    p.className = 'outcome';
    p.textContent = card.dataset.outcome;
    form.replaceWith(p);
  }

  cards().forEach(arm);
  tick();
  setInterval(tick, 1000);

  const es = new EventSource('events');
  es.addEventListener('open', () => setLive('Live: writes appear here as they are asked for.', false));
  es.addEventListener('error', () => {
    if (es.readyState === EventSource.CLOSED) setLive('Not connected: reload the page.', true);
    else setLive('Reconnecting… this list may be out of date.', true);
  });
  es.addEventListener('sync', (ev) => {
    const d = JSON.parse(ev.data);
    const ids = new Set(d.cards.map((c) => c.id));
    for (const card of cards()) {
      if (!ids.has(card.dataset.id)) end(card, d.gone);
    }
    d.cards.forEach((c) => add(c.html));
    updateNone();
    tick();
  });
  es.addEventListener('opened', (ev) => {
    add(JSON.parse(ev.data).html);
    updateNone();
    tick();
  });
  es.addEventListener('ended', (ev) => {
    const d = JSON.parse(ev.data);
    const card = cardOf(d.id);
    if (card) end(card, d.text);
    updateNone();
  });
})();
