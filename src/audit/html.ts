import type { AuditJson } from './output.js';
export function auditHtml(report: AuditJson): string {
  return JSON.stringify(report);
}
