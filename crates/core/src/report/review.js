// Sightline review page (`sightline review`): approve and reject through the local review server,
// one snapshot or a whole group (a focused group takes a and r too); accept a capture as a
// variant; undo the last decision; remove a missing snapshot's unused baseline; a second,
// explicit confirmation for a capture the server holds as unhealthy; keyboard review below the
// sticky bar; the views (the regions at full size among them); the group filter; the progress
// count; the `git add` line; and a reload when a new run rewrites results.json. The page's URL carries the server's token as its
// first path segment, so every request below goes under it; every change is a POST carrying the
// results version the page was rendered from, and the server refuses one from an older page.
'use strict';
(() => {
  const base = location.pathname.replace(/[^/]*$/, '');
  const key = (name, project) => JSON.stringify([name, project]);
  let state;
  let cards = [];
  let focused = -1;

  async function post(action, body) {
    const response = await fetch(`${base}_/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ results: state.results, ...body }),
    });
    const text = await response.text();
    let data;
    try {
      data = JSON.parse(text);
    } catch {
      data = { error: text };
    }
    if (!response.ok) throw new Error(data.error || `the review server answered ${response.status}`);
    return data;
  }

  function showError(message) {
    const box = document.getElementById('review-error');
    box.textContent = message;
    box.hidden = !message;
  }

  const target = (card) => ({ name: card.dataset.name, project: card.dataset.project });
  const cardOf = (name, project) => cards.find((c) => c.dataset.name === name && c.dataset.project === project);

  /** Shows the decisions in force on the cards, the progress count and the commit line. */
  function render() {
    const decisions = new Map(state.decisions.map((d) => [key(d.name, d.project), d]));
    let reviewed = 0;
    for (const card of cards) {
      const decision = decisions.get(key(card.dataset.name, card.dataset.project));
      const label = card.querySelector('.decide .decision');
      if (decision) {
        reviewed += 1;
        card.dataset.decision = decision.decision;
        label.textContent = decision.decision === 'rejected'
          ? 'Rejected: the baseline is kept; this capture shows as rejected until it changes'
          : decision.variant
            ? `Accepted as variant ${decision.variant}: ${decision.baseline} is this capture, beside the baseline`
            : `Approved: ${decision.baseline} is now this capture`;
      } else {
        delete card.dataset.decision;
        label.textContent = '';
      }
      // The badge says the decision, not the status it was decided on.
      const badge = card.querySelector('.head .badge');
      badge.dataset.status ??= badge.textContent;
      badge.textContent = !decision ? badge.dataset.status : decision.variant ? 'accepted variant' : decision.decision;
      // An approval has replaced the baseline: there is nothing left to decide (the server
      // refuses a rejection of it; taking it back is git's).
      for (const button of card.querySelectorAll('.decide button')) button.disabled = decision?.decision === 'approved';
    }
    document.getElementById('progress').textContent = `${reviewed} of ${cards.length} reviewed`;
    const commit = document.getElementById('commit');
    commit.hidden = state.commit.length === 0;
    const quote = (p) => (/^[\w./@+-]+$/.test(p) ? p : `'${p.replaceAll("'", "'\\''")}'`);
    document.getElementById('commit-command').textContent = `git add ${state.commit.map(quote).join(' ')}`;
  }

  /** Asks the person to confirm a capture the server held, in the card itself. */
  function confirmHeld(card, reason, asVariant) {
    card.querySelector('.confirm-unhealthy')?.remove();
    const box = document.createElement('div');
    box.className = 'confirm-unhealthy';
    box.setAttribute('role', 'alertdialog');
    const text = document.createElement('p');
    text.textContent = `Not approved: ${reason}`;
    const yes = document.createElement('button');
    yes.type = 'button';
    yes.dataset.action = 'approve-anyway';
    yes.textContent = 'Approve this capture anyway';
    const no = document.createElement('button');
    no.type = 'button';
    no.dataset.action = 'keep';
    no.textContent = 'Keep the old baseline';
    yes.addEventListener('click', () => {
      box.remove();
      decide('approve', [card], true, asVariant);
    });
    no.addEventListener('click', () => box.remove());
    box.append(text, yes, ' ', no);
    card.querySelector('.decide').after(box);
    yes.focus();
  }

  async function decide(action, chosen, includeUnhealthy = false, asVariant = false) {
    if (chosen.length === 0) return;
    showError('');
    try {
      const body = { snapshots: chosen.map(target) };
      if (action === 'approve') Object.assign(body, { includeUnhealthy, asVariant });
      const answer = await post(action, body);
      state.decisions = answer.decisions;
      state.commit = answer.commit;
      document.getElementById('undo').hidden = !answer.undo;
      for (const held of answer.held ?? []) {
        const card = cardOf(held.name, held.project);
        if (card) confirmHeld(card, held.reason, asVariant);
      }
      render();
    } catch (error) {
      showError(error.message);
    }
  }

  /** Takes back the last approval or rejection made on this page (the server puts the files back). */
  async function undo() {
    showError('');
    try {
      const answer = await post('undo', { snapshots: [] });
      state.decisions = answer.decisions;
      state.commit = answer.commit;
      document.getElementById('undo').hidden = true;
      render();
    } catch (error) {
      showError(error.message);
    }
  }

  function visibleCards() {
    return cards.filter((c) => !c.hidden && !c.closest('section')?.hidden);
  }

  function focus(card) {
    for (const c of cards) c.classList.toggle('focused', c === card);
    focused = cards.indexOf(card);
    card.scrollIntoView({ block: 'start' });
  }

  function step(by) {
    const shown = visibleCards();
    if (shown.length === 0) return;
    const at = shown.indexOf(cards[focused]);
    const next = at < 0 ? (by > 0 ? 0 : shown.length - 1) : Math.min(shown.length - 1, Math.max(0, at + by));
    focus(shown[next]);
  }

  const VIEWS = ['all', 'diff', 'slider', 'regions'];

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest?.('input, select, textarea')) return;
    const card = cards[focused];
    // On a group (Tab to it, or click it), a and r decide the whole group.
    const group = event.target.closest?.('section.groups li');
    if (group && (event.key === 'a' || event.key === 'r')) {
      group.querySelector(`[data-action="${event.key === 'a' ? 'approve' : 'reject'}-group"]`)?.click();
      event.preventDefault();
      return;
    }
    switch (event.key) {
      case 'j':
      case 'ArrowDown':
      case 's':
        step(1);
        break;
      case 'k':
      case 'ArrowUp':
        step(-1);
        break;
      case 'a':
        if (card) decide('approve', [card]);
        break;
      case 'r':
        if (card) decide('reject', [card]);
        break;
      case 'u':
        undo();
        break;
      case 'v':
        if (card) {
          card.dataset.view = VIEWS[(VIEWS.indexOf(card.dataset.view ?? 'all') + 1) % VIEWS.length];
          // The regions at full size are a view of their own.
          const native = card.querySelector('details.native');
          if (native) native.open = card.dataset.view === 'regions';
        }
        break;
      default:
        return;
    }
    event.preventDefault();
  }

  /** The status filter (report.js) and the group filter together. */
  function applyFilters() {
    const status = document.querySelector('.toolbar [data-filter][aria-pressed="true"]')?.dataset.filter ?? 'all';
    const chosen = document.getElementById('group-filter').value;
    const group = chosen === '' ? null : state.groups[Number(chosen)];
    const members = new Set((group?.members ?? []).map((m) => key(m.name, m.project)));
    for (const card of document.querySelectorAll('article.card')) {
      const byStatus = status === 'all' || card.dataset.status === status || (status === 'auto' && card.dataset.auto === 'true');
      card.hidden = !(byStatus && (!group || members.has(key(card.dataset.name, card.dataset.project))));
    }
    for (const section of document.querySelectorAll('section.status')) {
      section.hidden = !section.querySelector('article.card:not([hidden])');
    }
  }

  /** Waits on the server for results.json to change, then reloads the page. */
  async function watch() {
    const pause = () => new Promise((resolve) => setTimeout(resolve, 2000));
    for (;;) {
      try {
        const response = await fetch(`${base}_/wait?results=${encodeURIComponent(state.results)}`);
        if (!response.ok) {
          await pause();
          continue;
        }
        if ((await response.json()).changed) {
          location.reload();
          return;
        }
      } catch {
        await pause();
      }
    }
  }

  document.addEventListener('DOMContentLoaded', () => {
    state = JSON.parse(document.getElementById('review-state').textContent);
    // The cards needing a decision, as the core marks them (Status::needs_review).
    cards = [...document.querySelectorAll('article.card[data-needs-review]')];
    for (const card of cards) {
      const bar = document.createElement('div');
      bar.className = 'decide';
      bar.innerHTML =
        '<button type="button" data-action="approve">Approve</button> ' +
        '<button type="button" data-action="reject">Reject</button> <span class="decision"></span>';
      bar.querySelector('[data-action="approve"]').addEventListener('click', () => decide('approve', [card]));
      bar.querySelector('[data-action="reject"]').addEventListener('click', () => decide('reject', [card]));
      // A changed snapshot may have more than one legitimate state: this capture becomes one
      // more beside the baseline, which stays.
      if (card.hasAttribute('data-may-become-variant')) {
        const variant = document.createElement('button');
        variant.type = 'button';
        variant.dataset.action = 'accept-variant';
        variant.textContent = 'Accept as variant';
        variant.title = 'Keep the baseline and accept this capture as another state of the snapshot';
        variant.addEventListener('click', () => decide('approve', [card], false, true));
        bar.querySelector('[data-action="reject"]').after(' ', variant);
      }
      (card.querySelector('.verdict') ?? card.querySelector('.head')).after(bar);
    }
    // A missing snapshot's baseline is removed on purpose here, as `sightline prune` removes it:
    // only after a run of the whole suite (the server says why otherwise). The page reloads when
    // the server has written results.json without it.
    for (const card of document.querySelectorAll('article.card.st-missing')) {
      const bar = document.createElement('div');
      bar.className = 'decide remove';
      bar.innerHTML = '<button type="button" data-action="remove">Remove baseline</button> <span class="decision"></span>';
      const button = bar.querySelector('button');
      button.addEventListener('click', async () => {
        showError('');
        button.disabled = true;
        try {
          const answer = await post('remove', { snapshots: [target(card)] });
          bar.querySelector('.decision').textContent = `Removed ${answer.removed.join(', ')}: commit the deletion with your change`;
        } catch (error) {
          button.disabled = false;
          showError(error.message);
        }
      });
      (card.querySelector('.verdict') ?? card.querySelector('.head')).after(bar);
    }
    // Group approval: the groups section lists the groups in results.json's order.
    const items = [...document.querySelectorAll('section.groups li:not(.wide)')];
    state.groups.forEach((group, i) => {
      const members = group.members.map((m) => cardOf(m.name, m.project)).filter(Boolean);
      if (items[i] && members.length > 0) {
        // Focusable, so the keys reach it.
        items[i].tabIndex = 0;
        items[i].title = 'a approves the group, r rejects it';
        for (const action of ['approve', 'reject']) {
          const button = document.createElement('button');
          button.type = 'button';
          button.dataset.action = `${action}-group`;
          button.textContent = `${action === 'approve' ? 'Approve' : 'Reject'} group (${members.length})`;
          // A group rejection leaves the members already approved as they are.
          button.addEventListener('click', () => decide(action, action === 'reject' ? members.filter((c) => c.dataset.decision !== 'approved') : members));
          items[i].append(button, ' ');
        }
      }
      const option = document.createElement('option');
      option.value = String(i);
      option.textContent = `${group.label} (${group.members.length})`;
      document.getElementById('group-filter').append(option);
    });
    document.getElementById('group-filter').addEventListener('change', applyFilters);
    for (const button of document.querySelectorAll('.toolbar [data-filter]')) button.addEventListener('click', applyFilters);
    document.addEventListener('keydown', onKey);
    document.getElementById('undo').addEventListener('click', undo);
    // Cards moved to by key stop below the sticky bar, whatever its height (the commit box comes
    // and goes).
    const top = document.getElementById('reviewtop');
    const measure = () => {
      document.documentElement.style.setProperty('--review-top', `${top.offsetHeight}px`);
      // The bar grew over the focused card (the commit line appeared): the card moves below it.
      const card = cards[focused];
      if (card && card.getBoundingClientRect().top < top.getBoundingClientRect().bottom) card.scrollIntoView({ block: 'start' });
    };
    new ResizeObserver(measure).observe(top);
    measure();
    render();
    watch();
  });
})();
