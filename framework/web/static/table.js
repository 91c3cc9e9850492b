// ruledraft's table page: shows the seat's view the server sends over a WebSocket and
// sends the seat's moves. Everything is drawn with textContent: no text from a rule
// file is ever read as HTML.
"use strict";
(function () {
  const config = JSON.parse(document.getElementById("config").textContent);
  const cards = {};
  for (const c of config.cards) cards[c.id] = c;
  const $ = (id) => document.getElementById(id);
  let view = JSON.parse(document.getElementById("initial-view").textContent);
  let socket = null;
  let retry = 500;
  let selected = [];  // indices into the hand shown, in the order chosen
  let dummyStep = false;  // choosing the dummy's card after one's own

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v;
      else if (k === "class") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  // each colour of the game its own hue, spread evenly round the wheel in the order the
  // catalogue names them (a hash of the name gave pudding and nigiri nearly the same one)
  const colours = [...new Set(config.cards.map((c) => c.colour).filter(Boolean))];
  function hue(text) {
    return Math.round((colours.indexOf(text) * 360) / Math.max(colours.length, 1));
  }

  function cardName(id) { return cards[id] ? cards[id].name : id; }

  function cardBox(id, opts) {
    const c = cards[id] || { name: id, colour: "", text: [] };
    const label = [c.name, c.colour ? "colour " + c.colour : "no colour", ...c.text].join(". ");
    const box = el(opts.button ? "button" : "div", {
      class: "card", type: opts.button ? "button" : null, "aria-label": label,
      "aria-pressed": opts.pressed === undefined ? null : String(opts.pressed),
      disabled: opts.disabled || null, onclick: opts.onclick || null,
      "data-card": id, title: c.text.join("\n") || null,
    },
      el("span", { class: "name", text: c.name }),
      el("span", { class: "colour", text: c.colour ? "colour: " + c.colour : "no colour" }),
      el("ul", { class: "text" }, ...c.text.map((t) => el("li", { text: t }))));
    if (c.colour) box.style.borderLeftColor = "hsl(" + hue(c.colour) + " 55% 45%)";
    return box;
  }

  const OFFLINE = "Not connected: reconnecting... (make that move again once connected)";

  // the view's version a move was sent for, until the answer: a second click (a double
  // click) is not sent, which the server would refuse after the first had moved the game on
  let sentFor = null;

  function send(move) {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      showError(OFFLINE);
      return;
    }
    if (sentFor === view.version) return;
    sentFor = view.version;
    move.version = view.version;
    socket.send(JSON.stringify(move));
  }

  function showError(text) {
    const e = $("error");
    e.textContent = text;
    e.hidden = !text;
  }

  function status() {
    if (view.failure) return "This table stopped: " + view.failure;
    if (view.finished) {
      const w = view.sheet ? view.sheet.winners.map((k) => view.sheet.names[k]) : [];
      return "Game over." + (w.length ? " Winner: " + w.join(" and ") + "." : "");
    }
    const where = "Round " + view.round + " of " + view.rounds + ", turn " + view.turn + " of " + view.turns +
      " (" + view.passing + ")";
    if (view.decision) return where + ": a card effect asks you to choose.";
    if (view.pick) return where + ": your pick.";
    if (view.deciding) {
      return where + ": waiting for " + view.seats[view.deciding.seat].short + " to decide (" + cardName(view.deciding.card) + ").";
    }
    if (view.thinking && view.thinking.length) {  // the bots take a while over their moves
      return where + ": waiting for " + view.thinking.map((s) => view.seats[s].short).join(", ") + " to choose.";
    }
    const names = view.waiting.map((s) => view.seats[s].short);
    const mine = view.mine ? ": you picked " + picked(view.mine) : "";
    return where + mine + (names.length ? (mine ? "; waiting for " : ": waiting for ") + names.join(", ") + "." : ".");
  }

  function picked(mine) {  // "Egg Nigiri + Tempura (the dummy: Sashimi)"
    return mine.cards.map(cardName).join(" + ") + (mine.dummy ? " (the dummy: " + cardName(mine.dummy) + ")" : "");
  }

  function renderHand() {
    const box = $("hand-cards");
    const bar = $("pick-bar");
    box.replaceChildren();
    bar.replaceChildren();
    const pick = view.pick;
    $("hand").hidden = view.you === null || view.finished;  // the end: the score sheet instead
    if ($("hand").hidden) return;
    if (!view.hand.length) box.append(el("p", { text: "No cards in hand." }));
    const most = pick ? 1 + pick.extra : 0;
    const held = view.mine ? [...view.mine.cards, ...(view.mine.dummy ? [view.mine.dummy] : [])] : [];
    view.hand.forEach((id, i) => {
      const chosen = selected.indexOf(i);
      const mine = held.indexOf(id);  // the cards of the pick handed in, marked (one card each)
      if (mine >= 0) held.splice(mine, 1);
      box.append(cardBox(id, {
        button: true,
        disabled: !pick,
        pressed: pick ? chosen >= 0 : mine >= 0 ? true : undefined,
        onclick: () => {
          if (!pick) return;
          if (dummyStep) {
            if (chosen >= 0) return;
            send({ type: "pick", cards: selected.map((k) => view.hand[k]), dummy: id });
            return;
          }
          if (most === 1 && !pick.dummy) {
            send({ type: "pick", cards: [id] });
            return;
          }
          if (chosen >= 0) selected.splice(chosen, 1);
          else if (selected.length < most) selected.push(i);
          render();
          const again = document.querySelectorAll("#hand-cards .card")[i];
          if (again) again.focus();
        },
      }));
    });
    if (!pick) {
      if (view.you !== null && !view.finished && view.picked.includes(view.you)) {
        const what = view.mine ? "You picked " + picked(view.mine) + ": " : "Your pick is in: ";
        bar.append(el("p", { class: "hint", text: what + "it is revealed when every seat has picked." }));
      }
      return;
    }
    if (pick.drawn && pick.drawn.length) {
      bar.append(el("p", { class: "hint", text: "You control the dummy: you drew " + pick.drawn.map(cardName).join(", ") + " from its pile." }));
    }
    if (dummyStep) {
      bar.append(el("p", { class: "hint", text: "Now choose the dummy's card from the rest of your hand." }),
        el("button", { class: "act secondary", type: "button", text: "Back", onclick: () => { dummyStep = false; render(); } }));
      return;
    }
    if (most > 1 || pick.dummy) {
      const hint = most > 1
        ? "Choose a card, or up to " + most + " using your " + pick.tools.join(" / ") + " (in the order you take them)."
        : "Choose your card; then the dummy's.";
      bar.append(el("p", { class: "hint", text: hint }));
      bar.append(el("button", {
        class: "act", type: "button", id: "take", disabled: selected.length ? null : true,
        text: selected.length > 1 ? "Take these " + selected.length + " cards" : "Take this card",
        onclick: () => {
          if (!selected.length) return;
          if (pick.dummy) { dummyStep = true; document.activeElement.blur(); render(); return; }
          send({ type: "pick", cards: selected.map((k) => view.hand[k]) });
        },
      }));
    }
  }

  function renderDecision() {
    const box = $("decision");
    const d = view.decision;
    box.replaceChildren();
    box.hidden = !d;
    if (!d) return;
    box.append(el("h2", { id: "decision-h", text: "Decide: " + cardName(d.card) }));
    box.append(el("p", { text: d.prompt }));
    if (d.reminder) box.append(el("p", { class: "hint", text: d.reminder }));
    if (d.shown.length) {
      box.append(el("p", { text: "Only you see these cards:" }));
      box.append(el("div", { class: "cards" }, ...d.shown.map((id) => cardBox(id, {}))));
    }
    const options = el("div", { class: "options", role: "group", "aria-label": "Your choice" });
    for (const o of d.options) {
      options.append(el("button", {
        class: "act" + (o.card ? "" : " secondary"), type: "button", text: o.label, "data-option": String(o.action),
        onclick: () => send({ type: "decide", option: o.action }),
      }));
    }
    box.append(options);
  }

  function cell(text, num) { return el("td", { class: num ? "num" : null, text: String(text) }); }

  // A row's header whose long rule id may break after its underscores (takeout_face_down)
  function breakable(label) {
    const th = el("th", { scope: "row" });
    label.split("_").forEach((part, i) => { if (i) th.append("_", document.createElement("wbr")); th.append(part); });
    return th;
  }

  // A wide table scrolls sideways on a narrow screen: what it holds is said above it, where
  // the words wrap to the screen (a caption is as wide as its table, and scrolled away with it);
  // the table is named by its section's heading (``part``-h) and described by those words.
  function described(part, table, words) {
    table.setAttribute("aria-labelledby", part + "-h");
    table.setAttribute("aria-describedby", part + "-note");
    return [el("p", { class: "hint", id: part + "-note", text: words }), el("div", { class: "scroll" }, table)];
  }

  function renderBoards() {
    const box = $("boards");
    box.replaceChildren();
    if (view.columns.length) {
      box.append(el("ul", { class: "hint" }, ...view.columns.map(([rid, words]) => el("li", { text: rid + ": " + words }))));
    }
    const first = view.boards[0];
    const head = ["seat", "points", "round", "hand",
      ...first.majorities.map((m) => m[0]), ...first.modifiers.map((m) => m[0]), ...first.races.map((r) => r[0]), "kept"];
    const thead = el("thead", {}, el("tr", {}, ...head.map((h, i) => el("th", { scope: "col", class: i > 0 && i < 4 ? "num" : null, text: h }))));
    const rows = view.boards.map((b) => {
      const name = view.seats[b.seat].name + (view.picked.includes(b.seat) ? " (picked)" : "");
      return el("tr", { class: b.seat === view.you ? "you" : null },
        el("th", { scope: "row", text: name }),
        cell(b.points, true), cell(b.round_points === null ? "?" : b.round_points > 0 ? "+" + b.round_points : b.round_points, true),
        cell(b.pile !== null ? "pile " + b.pile : b.hand, true),
        ...b.majorities.map((m) => cell(m[1], true)),
        ...b.modifiers.map((m) => cell([m[1] ? m[1] + " loaded" : "", m[2] ? m[2] + " waiting" : ""].join(" ").trim() || "-")),
        ...b.races.map((r) => cell(r[1] + "/" + r[2], true)),
        el("td", { class: "kept", text: grouped(b.kept) }));
    });
    box.append(...described("boards", el("table", {}, thead, el("tbody", {}, ...rows)),
      "Points so far, what the round would score now, and what each seat holds."));
    for (const race of view.races) {
      box.append(el("p", { text: race.rule + ", a race to " + race.target + ": " +
        [...race.taken, race.open.length ? "open: " + race.open.join(", ") : "no place left"].join("; ") }));
    }
    const played = el("ul", { class: "played", "aria-label": view.played_title });
    for (const b of view.boards) {
      const copies = Object.fromEntries(b.copies);
      const names = b.played.map((id, i) => (i in copies ? cardName(copies[i]) + " (as " + cardName(id) + ")" : cardName(id)));
      played.append(el("li", { text: view.seats[b.seat].short + ": " + (names.join(", ") || "-") }));
    }
    box.append(el("h3", { text: view.played_title }), played);
    if (view.round_scores.length) {
      const rs = el("table", {}, el("caption", { text: "Points by round" }),
        el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "round" }), ...view.seats.map((s) => el("th", { scope: "col", class: "num", text: s.short })))),
        el("tbody", {}, ...view.round_scores.map((pts, r) => el("tr", {}, el("th", { scope: "row", text: String(r + 1) }), ...pts.map((p) => cell(p, true))))));
      box.append(el("div", { class: "scroll" }, rs));
    }
  }

  function grouped(ids) {
    if (!ids.length) return "-";
    const counts = new Map();
    for (const id of ids) counts.set(id, (counts.get(id) || 0) + 1);
    return [...counts].map(([id, k]) => cardName(id) + (k > 1 ? " x" + k : "")).join(", ");
  }

  function renderSheet() {
    const box = $("sheet");
    const s = view.sheet;
    box.replaceChildren();
    box.hidden = !s;
    if (!s) return;
    box.append(el("h2", { id: "sheet-h", text: "Final score sheet" }));
    const head = el("tr", {}, el("th", { scope: "col", text: "points" }),
      ...s.names.map((n) => el("th", { scope: "col", class: "num", text: n })));
    const line = (label, points, cls) => el("tr", { class: cls || null }, breakable(label), ...points.map((p) => cell(p, true)));
    const rows = [
      ...s.rules.map((r) => line(r.rule, r.points)),
      ...s.scorings.map((r) => line(r.when, r.points, "sub")),
      line("total", s.totals, "total"),
    ];
    box.append(...described("sheet", el("table", { id: "sheet-table" }, el("thead", {}, head), el("tbody", {}, ...rows)),
      "Each rule's points over the game, then each scoring's."));
    const winners = s.winners.map((w) => s.names[w]);
    if (s.tie) box.append(el("p", { id: "tie", text: s.tie }));
    box.append(el("p", { id: "winners", text: winners.length ? "Winner: " + winners.join(" and ") + "." : "No winner." }));
    box.append(el("p", {}, el("a", { href: config.log, download: "", text: "Download the game's log" }),
      el("span", { class: "hint", text: " (check it with ruledraft replay)" })));
  }

  function renderLog() {
    const box = $("log");
    const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
    box.replaceChildren(...view.log.map((line) => el("li", { text: line })));
    if (atEnd) box.scrollTop = box.scrollHeight;
  }

  function render() {
    $("status").textContent = status();
    renderDecision();
    renderHand();
    renderBoards();
    renderSheet();
    renderLog();
    // the focus on the move asked, unless it is somewhere else on the page (the log, the rules)
    const active = document.activeElement;
    if ((view.pick || view.decision) && (!active || active === document.body || !document.contains(active))) {
      const target = view.decision ? document.querySelector("#decision button")
        : document.querySelector(dummyStep ? "#hand-cards .card[aria-pressed=false]" : "#hand-cards .card");
      if (target) target.focus();
    }
    document.body.dataset.version = String(view.version);
    document.body.dataset.state = view.finished ? "finished" : view.decision ? "deciding" : view.pick ? "picking" : "waiting";
  }

  function receive(event) {
    let data;
    try { data = JSON.parse(event.data); } catch (e) { return; }
    if (data.type === "error") { sentFor = null; showError(data.message); return; }
    if (data.type === "picked") {  // another seat has picked: only who has, and who the table waits for
      view.picked = data.picked;
      view.waiting = data.waiting;
      view.thinking = [];
      $("status").textContent = status();
      renderBoards();
      return;
    }
    if (data.type === "thinking") {  // every person has moved; the bots take a while
      view.thinking = data.seats;
      view.pick = null;
      view.decision = null;
      render();
      return;
    }
    if (data.type !== "view") return;
    const moved = data.version !== view.version || JSON.stringify(data.hand) !== JSON.stringify(view.hand);
    view = data;
    if (moved) { selected = []; dummyStep = false; sentFor = null; showError(""); }
    render();
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(proto + location.host + config.ws);
    socket.addEventListener("open", () => {
      retry = 500;
      sentFor = null;  // a move sent as the link dropped may never have arrived
      $("link-state").textContent = "connected";
      if ($("error").textContent === OFFLINE) showError("");  // said while the link was down: it is back
    });
    socket.addEventListener("message", receive);
    socket.addEventListener("close", (e) => {
      $("link-state").textContent = "disconnected: reconnecting...";
      if (e.code === 1008) { $("link-state").textContent = "this link opens no seat"; return; }
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    });
  }

  render();
  connect();
})();
