// What a product says of itself to agents and clients: what it does, its MCP start tool, its
// REST paths, and what get_capabilities adds beside its options. One per product (card.ts in
// its folder); the MCP tools and get_capabilities serve them all alike.
import type { JobResults } from '../domain/job-results.ts';
import type { JobRow, Product } from '../domain/ports.ts';
import type { Ctx } from '../http/context.ts';

export interface ProductCard {
  product: Product;
  does: string;
  /** The MCP tool that starts its jobs. */
  tool: { name: string; title: string; description: string };
  /** Where its sessions are created, described, listed and deleted (hide and reveal share one). */
  sessionPath: string;
  /** Its REST paths, as get_capabilities gives them. */
  rest: Record<string, string>;
  /** A finished job's result files, as REST's results path and MCP's get_job_results answer them (analyse answers per file, elsewhere). */
  results?: (ctx: Ctx, results: JobResults, job: JobRow) => Promise<Record<string, unknown>>;
  /** What get_capabilities says of it under its own key (formats it makes, say). */
  capabilities?: () => Record<string, unknown>;
}
