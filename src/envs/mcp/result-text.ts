import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** One content block of a tool result, as the observation shows it. */
function blockText(block: CallToolResult['content'][number]): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}]`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
    case 'resource_link':
      return `[resource link ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

/**
 * The text of a tool result: its content blocks one after another (text as is, binary content
 * by its type), or its structured content as JSON when it has no text; `(empty result)` when it
 * has neither, so an observation is never blank.
 */
export function resultText(result: CallToolResult): string {
  const text = result.content.map(blockText).join('\n').trim();
  if (text !== '') return text;
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return '(empty result)';
}
