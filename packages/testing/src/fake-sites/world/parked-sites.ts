// Domains whose business is gone: a registrar's or marketplace's parking page, an expired-domain notice.
// Written after the pages Sedo, GoDaddy, Dan.com, Namecheap, IONOS and Bodis serve. Every address and
// profile on them is the registrar's; a careful person notes "no website" and takes nothing.
import { wrap } from '../site-builders';

interface Parked {
  id: string;
  host: string;
  country: string;
  builder: 'plain';
  businessName: string;
  pages: Record<string, string>;
}

const page = (title: string, body: string) => ({ '/': wrap('plain', 'en', title, body) });

export const PARKED_SITES: Parked[] = [
  {
    id: 'parked-sedo',
    host: 'cafe-lindenhof.de',
    country: 'DE',
    builder: 'plain',
    businessName: 'Café Lindenhof',
    pages: page(
      'cafe-lindenhof.de',
      `<div class="container"><h1>cafe-lindenhof.de</h1><p>Diese Domain steht zum Verkauf! This domain may be for sale!</p>
<a href="https://sedo.com/search/details/?domain=cafe-lindenhof.de&amp;origin=parking">Jetzt kaufen / Buy now</a>
<h2>Related Links</h2><ul><li><a href="/?search=cafe">Café</a></li><li><a href="/?search=kuchen">Kuchen</a></li></ul>
<footer>Copyright © Sedo GmbH · <a href="https://www.facebook.com/SedoCom">Facebook</a> · <a href="https://www.linkedin.com/company/sedo-com">LinkedIn</a> · Kontakt: <a href="mailto:service@sedo.de">service@sedo.de</a> · Datenschutz</footer></div>`,
    ),
  },
  {
    id: 'parked-godaddy',
    host: 'joesplumbingtx.com',
    country: 'US',
    builder: 'plain',
    businessName: "Joe's Plumbing",
    pages: page(
      'joesplumbingtx.com',
      `<div id="parking"><h1>joesplumbingtx.com</h1><p>This Web page is parked for FREE, courtesy of GoDaddy.com.</p>
<p>Is this your domain? Let's turn it into a website!</p><a href="https://www.godaddy.com/domains">Get This Domain</a>
<p>Questions? Email <a href="mailto:domainsales@godaddy-parking.com">domainsales@godaddy-parking.com</a></p>
<div class="social"><a href="https://www.instagram.com/godaddyparking">Instagram</a> <a href="https://www.facebook.com/GoDaddyDomains">Facebook</a></div></div>`,
    ),
  },
  {
    id: 'parked-dan',
    host: 'boulangerie-leroy.fr',
    country: 'FR',
    builder: 'plain',
    businessName: 'Boulangerie Leroy',
    pages: page(
      'boulangerie-leroy.fr',
      `<main><h1>The domain name boulangerie-leroy.fr is for sale</h1><p>Buy now for €1,490 or make an offer. Secure transfer with buyer protection.</p>
<form action="https://dan.com/buy-domain/boulangerie-leroy.fr"><input name="offer"><button>Make offer</button></form>
<p>Need help? <a href="mailto:support@dan-domains.com">support@dan-domains.com</a> · <a href="https://www.linkedin.com/company/dan-com">LinkedIn</a> · <a href="https://www.facebook.com/dandotcom">Facebook</a></p></main>`,
    ),
  },
  {
    id: 'expired-namecheap',
    host: 'greenleaf-yoga.co.uk',
    country: 'GB',
    builder: 'plain',
    businessName: 'Greenleaf Yoga',
    pages: page(
      'greenleaf-yoga.co.uk',
      `<div class="expired"><h1>greenleaf-yoga.co.uk expired on 2025-09-14 and is pending renewal or deletion.</h1>
<p>If you are the owner of this domain, log in to your Namecheap account to renew it.</p>
<p>Contact support: <a href="mailto:support@namecheap-parking.com">support@namecheap-parking.com</a></p>
<a href="https://www.facebook.com/NameCheap">Facebook</a> <a href="https://www.instagram.com/namecheap_parking">Instagram</a></div>`,
    ),
  },
  {
    id: 'expired-ionos',
    host: 'zahnarzt-brenner.de',
    country: 'DE',
    builder: 'plain',
    businessName: 'Zahnarztpraxis Brenner',
    pages: page(
      'zahnarzt-brenner.de',
      `<div class="content"><h1>Diese Domain ist abgelaufen</h1><p>Die Domain zahnarzt-brenner.de ist nicht mehr registriert und wird in Kürze wieder freigegeben.
Sie möchten diese Domain registrieren? Jetzt Domain reservieren.</p><p>Hilfe: domain-service@ionos-parking.de</p>
<a href="https://www.linkedin.com/company/ionos-parking">IONOS auf LinkedIn</a></div>`,
    ),
  },
  {
    id: 'parked-bodis',
    host: 'trattoria-mare.it',
    country: 'IT',
    builder: 'plain',
    businessName: 'Trattoria Mare',
    pages: page(
      'trattoria-mare.it',
      `<div id="bodis"><h1>trattoria-mare.it</h1><h2>Related searches</h2><ul><li>Restaurant Deals</li><li>Seafood Recipes</li><li>Italian Food Delivery</li></ul>
<p class="privacy">This domain is parked free of charge with Bodis. <a href="https://www.bodis.com/privacy">Privacy Policy</a> · abuse@bodis-parking.com</p>
<script>window.park = "eyJ1dWlkIjoiNGIxZSIsInBhZ2VfdGltZSI6MTcwMCwicGFnZV91cmwiOiJodHRwOi8vdHJhdHRvcmlhLW1hcmUuaXQifQ==";</script>
<a href="https://www.facebook.com/bodisparking">Facebook</a></div>`,
    ),
  },
];
