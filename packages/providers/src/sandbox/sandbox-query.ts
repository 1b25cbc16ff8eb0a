import { isSandboxKeyword } from '@leadgen/domain';
import type { CompanySize, ContactChannel, GenerationRequest, Seniority, Source } from '@leadgen/domain';
import { displayCity } from './sandbox-data';

/** A generation request as the sandbox reads it: trimmed, filter lists sorted, directives set aside. */
export interface SandboxQuery {
  source: Source;
  category: string;
  /** ISO code, upper case */
  state: string;
  city: string | null;
  /** a real search keyword; a `sandbox:` keyword steers the sandbox and filters nothing */
  keyword: string | null;
  titles: string[];
  seniorities: Seniority[];
  industries: string[];
  companySizes: CompanySize[];
  /** the country linkedin people are searched in: linkedinParams.country, else state */
  linkedinCountry: string;
  decisionMakerTitles: string[];
  requiredChannels: ContactChannel[];
}

// Sorted, so that listing the same filter values in another order asks for, and gets, the same leads.
function normalized<T extends string>(values: readonly T[] | undefined): T[] {
  return [...new Set((values ?? []).map((v) => v.trim() as T).filter((v) => v.length > 0))].sort();
}

export function toQuery(source: Source, request: GenerationRequest): SandboxQuery {
  const linkedin = request.linkedinParams ?? {};
  const keyword = request.keyword?.trim();
  return {
    source,
    category: request.category.trim(),
    state: request.state.trim().toUpperCase(),
    city: displayCity(request.city),
    keyword: keyword && !isSandboxKeyword(keyword) ? keyword : null,
    titles: normalized(linkedin.title),
    seniorities: normalized(linkedin.seniority),
    industries: normalized(linkedin.industry),
    companySizes: normalized(linkedin.companySize),
    linkedinCountry: (linkedin.country ?? request.state).trim().toUpperCase(),
    decisionMakerTitles: normalized(request.decisionMakerTitles),
    requiredChannels: normalized(request.requiredChannels),
  };
}

/**
 * The text the sandbox's randomness is seeded from. Case is folded so "Austin" and "austin" are one
 * search. Left out: maxResults (asking for more must not change the first leads), sandbox directives
 * (delay=5 must not change the data), and requiredChannels (it filters the stores an upstream holds,
 * it does not make different ones).
 */
export function seedOf(query: SandboxQuery): string {
  const { requiredChannels: _filter, ...identity } = query;
  return JSON.stringify({
    ...identity,
    category: identity.category.toLowerCase(),
    city: identity.city?.toLowerCase() ?? null,
    keyword: identity.keyword?.toLowerCase() ?? null,
  });
}
