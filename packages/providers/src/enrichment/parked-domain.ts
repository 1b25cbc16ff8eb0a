/**
 * A registrar's or marketplace's parking page, or an expired-domain notice, instead of the business's
 * site: such a page's addresses and profiles are the registrar's, and the lead gets none of them.
 * Read from the words these pages use (in the languages of the served countries), together with the
 * page naming its own domain or offering it: a business's page that merely mentions "for sale" is not one.
 */
const PARKING_PHRASES = [
  /\bdomain(?: name)?\b[^.!?]{0,60}\b(?:is|may be|might be) for sale\b/i,
  /\bbuy this domain\b|\bmake an offer\b|\bget this domain\b/i,
  /\bparked (?:for free|free of charge|domain|with)\b|\bthis (?:web )?page is parked\b|\bdomain parking\b/i,
  /\b(?:domain|website)[^.!?]{0,60}\b(?:has expired|is expired|expired on)\b|\bpending renewal or deletion\b/i,
  /\bdiese domain (?:steht zum verkauf|ist abgelaufen|kaufen|wurde registriert)\b|\bdomain steht zum verkauf\b/i,
  /\bce (?:nom de )?domaine est (?:a|à) vendre\b|\bnom de domaine expir[ée]/i,
  /\beste dominio (?:est[aá] a la venta|ha caducado|ha expirado)\b|\bdominio in vendita\b|\bdom[ií]nio (?:est[aá] )?(?:à|a) venda\b/i,
  /\bdomein (?:is )?te koop\b|\bdomena na sprzeda[zż]\b|\bdom[eé]na je na prodej\b/i,
  /\brelated (?:searches|links)\b[\s\S]{0,400}\b(?:sedo|bodis|parkingcrew|above\.com|dan\.com|afternic|godaddy)\b/i,
];

export function isParkedPage(text: string, host: string): boolean {
  const matches = PARKING_PHRASES.filter((phrase) => phrase.test(text)).length;
  if (matches === 0) return false;
  // a parking page is about its own domain name: it names it, or says "this domain"
  const domain = host.toLowerCase().replace(/^www\./, '');
  return text.toLowerCase().includes(domain) || /\bthis (?:domain|web page)\b|\bdiese domain\b/i.test(text) || matches >= 2;
}
