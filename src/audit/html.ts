// The audit as one self-contained HTML page: inline style, inline SVG charts (guardian-e-mail coverage per
// school, records by severity), tables filtered by a few lines of inline script. Its Content-Security-Policy
// forbids every fetch, so the page never reaches the network; every text from the server is escaped (and
// stripped of control characters) before it is written, so no record can add markup or script.
import { AUDIT_CHECKS, type Severity, severityOf } from './checks.js';
import { type AuditJson, percent } from './output.js';

const COLOUR: Record<Severity, string> = { error: '#c62828', warning: '#ef8f00', info: '#1565c0' };

function esc(text: string | number): string {
  return String(text)
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Horizontal bars, one per row: label, value 0…max, the text shown after the bar. */
function barChart(
  id: string,
  title: string,
  rows: { label: string; value: number; max: number; text: string; colour: string }[],
): string {
  const barHeight = 22;
  const labelWidth = 260;
  const barWidth = 380;
  const height = rows.length * (barHeight + 8) + 8;
  const bars = rows
    .map((r, i) => {
      const y = 8 + i * (barHeight + 8);
      const w = r.max === 0 ? 0 : Math.round((barWidth * r.value) / r.max);
      return `<g class="bar" data-label="${esc(r.label)}" data-value="${esc(r.text)}"><title>${esc(`${r.label}: ${r.text}`)}</title><text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end">${esc(r.label)}</text><rect x="${labelWidth}" y="${y}" width="${barWidth}" height="${barHeight}" fill="#eee"/><rect x="${labelWidth}" y="${y}" width="${w}" height="${barHeight}" fill="${r.colour}"/><text x="${labelWidth + barWidth + 8}" y="${y + 15}">${esc(r.text)}</text></g>`;
    })
    .join('');
  return `<figure id="${id}"><figcaption>${esc(title)}</figcaption><svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${esc(title)}" width="${labelWidth + barWidth + 150}" height="${height}" font-size="13">${bars}</svg></figure>`;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222}h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right}.sev{font-weight:600}.error{color:${COLOUR.error}}.warning{color:${COLOUR.warning}}.info{color:${COLOUR.info}}
figure{margin:1rem 0}figcaption{font-weight:600;margin-bottom:.25rem}.charts{display:flex;flex-wrap:wrap;gap:2rem}
.filters{display:flex;gap:1rem;align-items:center;margin:.5rem 0}#shown{color:#666}`;

// Filters the records table by check, severity and text; the first values can come from the address
// (#check=…&severity=…&q=…), so a link can open the page filtered.
const SCRIPT = `(function(){var rows=[].slice.call(document.querySelectorAll('#records tbody tr'));
var check=document.getElementById('f-check'),sev=document.getElementById('f-severity'),q=document.getElementById('f-text'),shown=document.getElementById('shown');
var h=new URLSearchParams(location.hash.slice(1));if(h.get('check'))check.value=h.get('check');if(h.get('severity'))sev.value=h.get('severity');if(h.get('q'))q.value=h.get('q');
function apply(){var t=q.value.toLowerCase(),n=0;rows.forEach(function(r){var ok=(!check.value||r.dataset.check===check.value)&&(!sev.value||r.dataset.severity===sev.value)&&(!t||r.textContent.toLowerCase().indexOf(t)>=0);r.hidden=!ok;if(ok)n++;});shown.textContent=n+' of '+rows.length+' records shown';}
[check,sev,q].forEach(function(e){e.addEventListener('input',apply);});apply();})();`;

type Summary = AuditJson['summary'];
type Findings = AuditJson['findings'];

/** The two charts: guardian-e-mail coverage per school, and records by severity. */
function charts(summary: Summary): string {
  const coverage = barChart(
    'coverage-chart',
    'Students with a guardian e-mail, per school',
    summary.perSchool.map((s) => ({
      label: s.name || s.sourcedId,
      value: s.withGuardianEmail,
      max: s.students,
      text: `${percent(s.guardianEmailShare)} (${s.withGuardianEmail}/${s.students})`,
      colour: '#2e7d32',
    })),
  );
  const most = Math.max(1, ...Object.values(summary.counts));
  const severity = barChart(
    'severity-chart',
    'Records found, by severity',
    (['error', 'warning', 'info'] as const).map((s) => ({
      label: s,
      value: summary.counts[s],
      max: most,
      text: String(summary.counts[s]),
      colour: COLOUR[s],
    })),
  );
  return `${coverage}${severity}`;
}

/** The checks table's rows: each check run with its count and meaning, then each one not run and why. */
function checkRows(summary: Summary, findings: Findings): string {
  const meaning = new Map<string, string>(AUDIT_CHECKS.map((c) => [c.id, c.meaning]));
  const run = findings
    .map(
      (f) =>
        `<tr data-check="${esc(f.check)}"><td>${esc(f.check)}</td><td class="sev ${f.severity}">${f.severity}</td><td class="n">${f.count}</td><td>${esc(meaning.get(f.check) ?? '')}</td></tr>`,
    )
    .join('');
  const notRun = summary.notChecked
    .flatMap((n) =>
      n.checks.map(
        (check) =>
          `<tr data-check="${esc(check)}" class="not-run"><td>${esc(check)}</td><td class="sev ${severityOf(check)}">${severityOf(check)}</td><td class="n">not run</td><td>${esc(`the server does not serve ${n.collection} (${n.answer})`)}</td></tr>`,
      ),
    )
    .join('');
  return `${run}${notRun}`;
}

function schoolRows(summary: Summary): string {
  return summary.perSchool
    .map(
      (s) =>
        `<tr><td>${esc(s.name)}</td><td>${esc(s.sourcedId)}</td><td class="n">${s.students}</td><td class="n">${percent(s.guardianEmailShare)}</td><td class="n">${s.classesWithTeacher}/${s.classes}</td></tr>`,
    )
    .join('');
}

function recordRows(findings: Findings): string {
  return findings
    .flatMap((f) =>
      f.records.map(
        (r) =>
          `<tr data-check="${esc(f.check)}" data-severity="${f.severity}"><td>${esc(f.check)}</td><td class="sev ${f.severity}">${f.severity}</td><td>${esc(r.collection)}</td><td>${esc(r.sourcedId)}</td><td>${esc(r.name ?? '')}</td><td>${esc(r.school ?? '')}</td><td>${esc(r.detail)}</td></tr>`,
      ),
    )
    .join('\n');
}

/** The collections the server did not serve, as a section of their own (none: no section). */
function notCheckedSection(summary: Summary): string {
  return summary.notChecked.length
    ? `<h2>Not checked</h2>\n<ul id="not-checked">${summary.notChecked.map((n) => `<li class="${n.required ? 'error' : 'warning'}">${esc(n.text)}.</li>`).join('')}</ul>\n`
    : '';
}

/** The first paragraph: how many records to look at, which schools, what was read. */
function totals(summary: Summary, findings: Findings): string {
  const total = findings.reduce((n, f) => n + f.count, 0);
  const { counts } = summary;
  const found =
    total === 0
      ? 'No finding.'
      : `${total} records to look at: ${counts.error} errors, ${counts.warning} warnings, ${counts.info} notes.`;
  const schools = summary.schools ? `Schools: ${esc(summary.schools.join(', '))}.` : 'Every school.';
  const read = Object.entries(summary.read)
    .map(([name, n]) => `${n} ${esc(name)}`)
    .join(', ');
  return `${found} ${schools} Read: ${read}.`;
}

export function auditHtml(report: AuditJson): string {
  const { summary, findings } = report;
  const title = `OneRoster ${summary.version} go-live audit, ${summary.date}`;
  const options = findings
    .filter((f) => f.count > 0)
    .map((f) => `<option value="${esc(f.check)}">${esc(f.check)} (${f.count})</option>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head><body>
<h1>${esc(title)}</h1>
<p id="totals">${totals(summary, findings)}</p>
<div class="charts">${charts(summary)}</div>
<h2>Checks</h2>
<table id="checks"><thead><tr><th>check</th><th>severity</th><th>count</th><th>meaning</th></tr></thead><tbody>${checkRows(summary, findings)}</tbody></table>
${notCheckedSection(summary)}<h2>Schools</h2>
<table id="schools"><thead><tr><th>school</th><th>sourcedId</th><th>students</th><th>with guardian e-mail</th><th>classes with teacher</th></tr></thead><tbody>${schoolRows(summary)}</tbody></table>
<h2>Records to fix</h2>
<div class="filters"><label>Check <select id="f-check"><option value="">every check</option>${options}</select></label>
<label>Severity <select id="f-severity"><option value="">every severity</option><option>error</option><option>warning</option><option>info</option></select></label>
<label>Text <input id="f-text" type="search" placeholder="sourcedId, name, detail…"></label><span id="shown"></span></div>
<table id="records"><thead><tr><th>check</th><th>severity</th><th>collection</th><th>sourcedId</th><th>name</th><th>school</th><th>detail</th></tr></thead><tbody>
${recordRows(findings)}
</tbody></table>
<script>${SCRIPT}</script>
</body></html>
`;
}
