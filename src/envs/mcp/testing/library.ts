/**
 * A tiny lending library as an MCP tool server, for the MCP env's tests: a catalog of books with
 * copies, three members, loans, and a reset tool that restores the opening state. Its answers are
 * deterministic, so the same calls always give the same texts.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

interface Book {
  id: string;
  title: string;
  author: string;
  copies: number;
}

interface Loan {
  bookId: string;
  member: string;
}

/** The members who may borrow. */
export const LIBRARY_MEMBERS = ['ada', 'grace', 'linus'] as const;

function openingBooks(): Book[] {
  return [
    { id: 'b1', title: 'Dune', author: 'Frank Herbert', copies: 2 },
    { id: 'b2', title: 'Emma', author: 'Jane Austen', copies: 1 },
    { id: 'b3', title: 'Beloved', author: 'Toni Morrison', copies: 1 },
    { id: 'b4', title: 'The Left Hand of Darkness', author: 'Ursula K. Le Guin', copies: 1 },
    { id: 'b5', title: 'Middlemarch', author: 'George Eliot', copies: 2 },
  ];
}

function openingLoans(): Loan[] {
  return [{ bookId: 'b2', member: 'grace' }];
}

/** The library's state and rules, apart from the protocol. */
class Library {
  books = openingBooks();
  loans = openingLoans();

  reset(): void {
    this.books = openingBooks();
    this.loans = openingLoans();
  }

  available(book: Book): number {
    return book.copies - this.loans.filter((loan) => loan.bookId === book.id).length;
  }

  line(book: Book): string {
    return `${book.id} | ${book.title} | ${book.author} | ${this.available(book)} of ${book.copies} available`;
  }

  find(id: string): Book | undefined {
    return this.books.find((book) => book.id === id);
  }
}

const text = (body: string): CallToolResult => ({ content: [{ type: 'text', text: body }] });
const failure = (body: string): CallToolResult => ({ ...text(body), isError: true });

/** What the server may be told to do wrong, for the tests of failures. */
export interface LibraryServerOptions {
  /** Exit the process, without answering, when this tool is called (a crash mid-episode). */
  crashOn?: string;
  /** Never answer calls of this tool (a server that stops answering). */
  hangOn?: string;
  /** Add `print_report({ chars })`, whose result is `chars` characters long (a huge result). */
  bulky?: boolean;
}

/** A new library server with its own state, at the opening state. */
export function createLibraryServer(options: LibraryServerOptions = {}): McpServer {
  const library = new Library();
  const server = new McpServer(
    { name: 'library-loans', version: '1.0.0' },
    { instructions: 'A small lending library: find books, lend and return them.' },
  );
  const guard = async (tool: string) => {
    if (options.hangOn === tool) await new Promise(() => {});
    if (options.crashOn !== tool) return;
    process.stderr.write(`library server: crashing on purpose in ${tool} (--crash-on)\n`);
    process.exit(3);
  };
  const member = z.string().describe('the member: ada, grace or linus');
  const bookId = z.string().describe('the book id, e.g. b1');

  server.registerTool(
    'search_catalog',
    {
      description: 'Finds books whose title or author holds every word of the query.',
      inputSchema: { query: z.string().describe('words of a title or author') },
    },
    async ({ query }) => {
      await guard('search_catalog');
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      const hits = library.books.filter((book) => {
        const haystack = `${book.title} ${book.author}`.toLowerCase();
        return words.every((word) => haystack.includes(word));
      });
      if (hits.length === 0) return text(`No books match "${query}".`);
      return text(hits.map((book) => library.line(book)).join('\n'));
    },
  );

  server.registerTool(
    'book_status',
    {
      description: 'The status of one book: copies, copies available and who borrowed it.',
      inputSchema: { book_id: bookId },
      outputSchema: {
        id: z.string(),
        title: z.string(),
        copies: z.number(),
        available: z.number(),
        borrowers: z.array(z.string()),
      },
    },
    async ({ book_id }) => {
      await guard('book_status');
      const book = library.find(book_id);
      if (!book) return failure(`No book ${book_id}.`);
      const borrowers = library.loans.filter((l) => l.bookId === book.id).map((l) => l.member);
      const status = {
        id: book.id,
        title: book.title,
        copies: book.copies,
        available: library.available(book),
        borrowers,
      };
      return { content: [], structuredContent: status };
    },
  );

  server.registerTool(
    'lend_book',
    {
      description: 'Lends a copy of a book to a member.',
      inputSchema: { book_id: bookId, member },
    },
    async ({ book_id, member }) => {
      await guard('lend_book');
      const book = library.find(book_id);
      if (!book) return failure(`No book ${book_id}.`);
      if (!(LIBRARY_MEMBERS as readonly string[]).includes(member)) {
        return failure(`No member ${member}; members are ${LIBRARY_MEMBERS.join(', ')}.`);
      }
      if (library.loans.some((l) => l.bookId === book.id && l.member === member)) {
        return failure(`${member} already has ${book.title}.`);
      }
      if (library.available(book) === 0) return failure(`No copy of ${book.title} is available.`);
      library.loans.push({ bookId: book.id, member });
      return text(`Lent ${book.title} (${book.id}) to ${member}.`);
    },
  );

  server.registerTool(
    'return_book',
    {
      description: 'Records that a member returned a book.',
      inputSchema: { book_id: bookId, member },
    },
    async ({ book_id, member }) => {
      await guard('return_book');
      const index = library.loans.findIndex((l) => l.bookId === book_id && l.member === member);
      if (index < 0) return failure(`${member} has no loan of ${book_id}.`);
      library.loans.splice(index, 1);
      return text(`${member} returned ${library.find(book_id)?.title} (${book_id}).`);
    },
  );

  server.registerTool(
    'list_loans',
    {
      description: 'Lists the loans, of one member or of all.',
      inputSchema: { member: member.optional() },
    },
    async ({ member }) => {
      await guard('list_loans');
      const loans = library.loans.filter((l) => member === undefined || l.member === member);
      if (loans.length === 0) return text(member ? `No loans for ${member}.` : 'No loans.');
      return text(
        loans.map((l) => `${l.bookId} ${library.find(l.bookId)?.title} — ${l.member}`).join('\n'),
      );
    },
  );

  server.registerTool(
    'add_book',
    {
      description: 'Adds a book to the catalog (staff only).',
      inputSchema: {
        title: z.string(),
        author: z.string(),
        copies: z.number().int().min(1).default(1),
      },
    },
    async ({ title, author, copies }) => {
      await guard('add_book');
      const id = `b${library.books.length + 1}`;
      library.books.push({ id, title, author, copies });
      return text(`Added ${id}: ${title} by ${author} (${copies} of ${copies} available).`);
    },
  );

  if (options.bulky) {
    server.registerTool(
      'print_report',
      {
        description: 'Prints the loans report, padded to `chars` characters.',
        inputSchema: { chars: z.number().int().min(1) },
      },
      async ({ chars }) => text(`Loans report: ${'.'.repeat(chars)}`.slice(0, chars)),
    );
  }

  server.registerTool(
    'reset_library',
    { description: 'Restores the opening catalog and loans (staff only).' },
    async () => {
      await guard('reset_library');
      library.reset();
      return text('Library reset.');
    },
  );

  return server;
}
