// Filled in by the audit-logic work.
