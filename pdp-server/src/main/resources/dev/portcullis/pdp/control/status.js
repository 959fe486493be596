// The PDP's status page (docs/operate.md): reads /control every 2 s and draws it; every value is
// put in as text, never as markup (a subject's name is the PEP's to choose).
"use strict";

const EVERY_MS = 2000;
let last = null; // {decisions, at}: for the rate
let may = [];

function $(id) {
  return document.getElementById(id);
}

async function get(path) {
  const r = await fetch(path, { credentials: "same-origin", cache: "no-store" });
  if (!r.ok) {
    throw new Error(path + ": " + r.status + " " + (await r.text()).trim());
  }
  return r.json();
}

async function post(path, params) {
  const q = new URLSearchParams(params).toString();
  const r = await fetch(path + "?" + q, { method: "POST", credentials: "same-origin" });
  const body = (await r.text()).trim();
  if (!r.ok) {
    throw new Error(r.status + " " + body);
  }
  return JSON.parse(body);
}

function set(id, value) {
  $(id).textContent = String(value);
}

/** Replaces a table's rows: one per item, each cell a value (or a node, a button say). */
function rows(id, items, cells, empty) {
  const body = $(id).tBodies[0];
  const fresh = document.createElement("tbody");
  for (const item of items) {
    const tr = fresh.insertRow();
    for (const c of cells(item)) {
      const td = tr.insertCell();
      if (c instanceof Node) {
        td.appendChild(c);
      } else {
        td.textContent = c === null || c === undefined ? "" : String(c);
      }
    }
  }
  if (items.length === 0) {
    const td = fresh.insertRow().insertCell();
    td.colSpan = $(id).tHead.rows[0].cells.length;
    td.className = "none";
    td.textContent = empty;
  }
  body.replaceWith(fresh);
}

function restoreButton(subject) {
  const b = document.createElement("button");
  b.textContent = "restore";
  b.addEventListener("click", async () => {
    try {
      await post("/control/restore", { subject });
      refresh();
    } catch (e) {
      failed(e);
    }
  });
  return b;
}

function failed(e) {
  $("error").hidden = false;
  set("error", e.message);
}

async function refresh() {
  try {
    const [status, peps, sessions, tunnels, revoked, fleet] = await Promise.all([
      get("/control/status"),
      get("/control/peps"),
      get("/control/sessions"),
      get("/control/tunnels"),
      get("/control/revoked"),
      get("/control/fleet"),
    ]);
    $("error").hidden = true;
    may = status.may;
    const now = performance.now();
    set("address", status.address);
    set("serving", status.serving ? "yes" : "no: " + status.notServing);
    set("connections", status.connections);
    set("decisions", status.decisions);
    if (last !== null && now > last.at) {
      set("rate", Math.round(((status.decisions - last.decisions) * 1000) / (now - last.at)));
    } else {
      set("rate", "\u2026");
    }
    last = { decisions: status.decisions, at: now };
    set("sessionCount", status.sessions);
    set("memberCount", status.fleetMembers === 0 ? "none (a PDP alone)" : status.fleetMembers);
    set(
      "summary",
      "operator " + status.operator + " (may " + status.may.join(", ") + "), " +
        new Date().toLocaleTimeString()
    );
    $("revoking").hidden = !may.includes("revoke");
    const restore = may.includes("revoke");
    rows("revoked", revoked.revoked, (r) => [r.subject, r.by, r.reason, r.at, restore ? restoreButton(r.subject) : ""], "nobody is revoked");
    rows("peps", peps.peps, (p) => [p.pep, p.address, p.clientTypes.join(" "), p.handles, p.tlsIdentity, p.since], "no PEP is connected");
    rows("sessions", sessions.sessions, (s) => [s.subject, s.pep === null ? "(fleet)" : s.pep, s.level, s.categories.join(" ")], "no session is open");
    rows("tunnels", tunnels.tunnels, (t) => [t.id, t.subject, t.gateway, t.objective, t.client, t.gatewayEnd, t.clientBytesIn === null ? "" : t.clientBytesIn + " / " + t.clientBytesOut, t.since, t.until], "no tunnel is granted");
    rows("fleet", fleet.members, (m) => [m.member, m.address, m.connections, m.draining ? "yes" : "no", m.control], "not in a fleet");
  } catch (e) {
    failed(e);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("revoke").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData($("revoke"));
    const params = { subject: f.get("subject") };
    if (f.get("reason")) {
      params.reason = f.get("reason");
    }
    try {
      const r = await post("/control/revoke", params);
      set("revokeResult", r.revoked ? params.subject + " revoked" : params.subject + ": " + r.detail);
      refresh();
    } catch (e) {
      failed(e);
    }
  });
  refresh();
  setInterval(refresh, EVERY_MS);
});
