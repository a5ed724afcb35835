import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { formatToolCall } from './action-syntax.ts';

/** A JSON Schema as MCP tools carry them (`inputSchema`), read loosely. */
type Schema = Record<string, unknown>;

function properties(schema: Schema): Array<[name: string, schema: Schema]> {
  const props = schema.properties;
  if (typeof props !== 'object' || props === null) return [];
  return Object.entries(props as Record<string, Schema>);
}

function required(schema: Schema): Set<string> {
  return new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
}

/** The JSON type of a property schema, for a signature: `string`, `integer`, `"a" | "b"`, … */
function typeOf(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (typeof schema.type === 'string') return schema.type;
  return 'any';
}

/** True for a property whose value is always a JSON string, so its placeholder sits in quotes. */
function isString(schema: Schema): boolean {
  if (Array.isArray(schema.enum)) return schema.enum.every((v) => typeof v === 'string');
  return schema.type === 'string';
}

/** A placeholder name without the angle brackets that delimit it. */
function slot(name: string): string {
  return `<${name.replace(/[<>]/g, '') || 'value'}>`;
}

/**
 * The admissible-action template of a tool: its required arguments as placeholders, quoted for
 * strings (`lend_book({"book_id": "<book_id>", "member": "<member>"})`) and bare for other JSON
 * values (`<copies>`); `tool()` when nothing is required. Optional arguments are in the
 * signature ({@link toolSignature}), not the template, so a filled template is a complete call.
 */
export function toolTemplate(tool: Pick<Tool, 'name' | 'inputSchema'>): string {
  const schema = tool.inputSchema as Schema;
  const needed = required(schema);
  const slots = properties(schema).filter(([name]) => needed.has(name));
  if (slots.length === 0) return formatToolCall({ tool: tool.name, arguments: {} });
  const body = slots
    .map(([name, prop]) => {
      const placeholder = isString(prop) ? `"${slot(name)}"` : slot(name);
      return `${JSON.stringify(name)}: ${placeholder}`;
    })
    .join(', ');
  return `${tool.name}({${body}})`;
}

/**
 * One line describing a tool for the observation: its signature with every argument (`?` marks
 * optional ones) and its description, e.g. `list_loans(member?: string): Lists the loans.`
 */
export function toolSignature(tool: Pick<Tool, 'name' | 'inputSchema' | 'description'>): string {
  const schema = tool.inputSchema as Schema;
  const needed = required(schema);
  const args = properties(schema)
    .map(([name, prop]) => `${name}${needed.has(name) ? '' : '?'}: ${typeOf(prop)}`)
    .join(', ');
  const description = tool.description?.trim().replace(/\s+/g, ' ');
  return `${tool.name}(${args})${description ? `: ${description}` : ''}`;
}
