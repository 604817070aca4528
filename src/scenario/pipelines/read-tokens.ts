/**
 * What an agent must read, in tokens. About four characters a token, the usual rule of thumb for
 * English text: the same estimate for an inbox and for a context bundle, so the modes compare.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * What a Coder tells the team when a module is done, in every mode (a message or a note): the
 * same words, so what each mode makes agents read differs only by how it delivers them.
 */
export function resultReport(module: string, agentId: string): string {
  return `Built ${module} (${agentId}): interface, implementation and tests are in; ready for review and for modules that depend on ${module}.`;
}
