import type { OutboxEntry } from './local-outbox.js';
import type { ArrivalView } from './webhook-inbox.js';

/**
 * The local inbox and outbox as small HTML pages for a person (a browser asks for `text/html`);
 * scripts and tests get the same lists as JSON. No script at all: the inbox's fail and recover
 * controls are plain forms posting to this origin. Styled with the dashboard's own stylesheet.
 */

/** Their policy: the dashboard's, with forms allowed to post back here. */
export const localPageHeaders = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const escaped = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (character) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!,
  );

/** Builds markup from a template, escaping every value that is not itself markup. */
class Html {
  constructor(readonly text: string) {}
}
const html = (parts: TemplateStringsArray, ...values: unknown[]): Html =>
  new Html(
    parts.reduce((out, part, index) => {
      if (index === 0) return part;
      const value = values[index - 1];
      const text = Array.isArray(value)
        ? value.map((item) => (item instanceof Html ? item.text : escaped(String(item)))).join('')
        : value instanceof Html
          ? value.text
          : escaped(String(value ?? ''));
      return `${out}${text}${part}`;
    }, ''),
  );

function page(title: string, stylesheet: string, content: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${stylesheet}">
</head>
<body>
<header class="top"><a class="brand" href="/">Developer dashboard</a>
<nav aria-label="Local"><a href="/_local/inbox">Local inbox</a><a href="/_local/outbox">Local outbox</a></nav></header>
<main>${content}</main>
</body>
</html>`.text;
}

const headerList = (headers: Record<string, string>) =>
  html`<dl class="headers mono small">${Object.entries(headers).map(
    ([name, value]) => html`<div><dt>${name}:</dt> <dd class="break">${value}</dd></div>`,
  )}</dl>`;

const verdict = (check: string) =>
  html`<span class="badge ${check === 'verified' ? 'ok' : 'off'}">${check}</span>`;

/** `/_local/inbox`: the inboxes that received something, and how to make one. */
export function inboxIndexPage(stylesheet: string, inboxOrigin: string, names: string[]): string {
  return page(
    'Local webhook inbox',
    stylesheet,
    html`<h1>Local webhook inbox</h1>
<p>Register <code>${inboxOrigin}/inbox/&lt;name&gt;</code> as an endpoint URL, with any name: each
name is an inbox of its own, and this page lists the ones that received a delivery.</p>
${
  names.length === 0
    ? html`<p>Nothing has arrived yet.</p>`
    : html`<ul>${names.map((name) => html`<li><a class="mono" href="/_local/inbox/${encodeURIComponent(name)}">${name}</a></li>`)}</ul>`
}`,
  );
}

/** `/_local/inbox/<name>`: what arrived there, newest first, with the verdicts on its signatures. */
export function inboxPage(
  stylesheet: string,
  inboxOrigin: string,
  name: string,
  answersWith: number,
  arrivals: ArrivalView[],
): string {
  const action = `/_local/inbox/${encodeURIComponent(name)}`;
  return page(
    `Inbox ${name}`,
    stylesheet,
    html`<h1>Inbox <span class="mono break">${name}</span></h1>
<p>Endpoint URL: <code class="break">${inboxOrigin}/inbox/${name}</code></p>
<section class="panel" aria-labelledby="answer-title">
<h2 id="answer-title">How it answers</h2>
<p>Every delivery now gets <strong>HTTP ${answersWith}</strong>.</p>
<form method="post" action="${action}" class="actions">
<button type="submit" name="status" value="503"${answersWith === 503 ? ' disabled' : ''}>Fail with 503</button>
<button type="submit" name="status" value="200"${answersWith === 200 ? ' disabled' : ''}>Recover: answer 200</button>
</form>
</section>
<h2>${arrivals.length} ${arrivals.length === 1 ? 'delivery' : 'deliveries'}, newest first</h2>
${arrivals.map(
  (arrival) => html`<section class="panel arrival">
<h3 class="mono">${arrival.event_type ?? 'not an event'} · ${arrival.received_at}</h3>
<dl class="facts">
<dt>Event id</dt><dd class="mono">${arrival.event_id ?? '—'}</dd>
<dt>Answered</dt><dd>HTTP ${arrival.answered_status}</dd>
<dt>webhook-signature</dt><dd>${verdict(arrival.signatures.webhook_signature)}</dd>
<dt>X-Service-Signature</dt><dd>${verdict(arrival.signatures.x_service_signature)}</dd>
<dt>Verified by</dt><dd class="mono">${arrival.signatures.endpoint_ids.join(', ') || 'no endpoint registered with this URL'}</dd>
</dl>
<h4>Headers</h4>
${headerList(arrival.headers)}
<h4>Body</h4>
<pre class="code" tabindex="0">${typeof arrival.body === 'string' ? arrival.body : JSON.stringify(arrival.body, null, 2)}</pre>
</section>`,
)}`,
  );
}

/** `/_local/outbox`: every email and text the local runtime "sent", newest first, codes apart. */
export function outboxPage(stylesheet: string, entries: OutboxEntry[]): string {
  return page(
    'Local outbox',
    stylesheet,
    html`<h1>Local outbox</h1>
<p>Locally no email or text leaves this machine: each one is kept here, newest first, and printed
on the console of <code>npm start</code>.</p>
${entries.length === 0 ? html`<p>No messages yet.</p>` : ''}
${entries.map((entry) => {
  const code = /\b\d{6}\b/.exec(entry.text)?.[0];
  return html`<section class="panel message">
<h2>${entry.channel === 'email' ? 'Email' : 'Text'} to <span class="mono break">${entry.to}</span></h2>
<p class="hint break">${entry.sent_at}${entry.subject ? html` · ${entry.subject}` : ''}</p>
${code ? html`<p>Code: <strong class="mono code-value">${code}</strong></p>` : ''}
<pre class="code" tabindex="0">${entry.text}</pre>
</section>`;
})}`,
  );
}
