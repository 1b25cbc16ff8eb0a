import { C, type LexiconEntry } from './storeleads-category-lexicon';

/**
 * The same categories in the other languages of the markets the shopify source is sold into most
 * (it takes any ISO country; these are the languages of the EU, EFTA, UK, Americas and Oceania
 * stores that make up most of Store Leads' Shopify stores): German, French, Spanish, Italian,
 * Dutch, Portuguese, Swedish, Danish, Norwegian and Polish. Written without accents, since the
 * request's text is folded the same way. Words that are also English words with another meaning
 * (Danish "mad", Swedish "mat", Italian "cane") are left out.
 */
const e = (terms: string, ...paths: string[]): LexiconEntry => ({ terms, paths });

export const INTERNATIONAL_LEXICON: readonly LexiconEntry[] = [
  e(
    'kleidung|bekleidung|mode|modegeschaft|vetement|vetements|pret a porter|ropa|moda|abbigliamento|kleding|roupa|roupas|vestuario|klader|kladesbutik|toj|klaer|odziez|ubrania',
    C.apparel,
  ),
  e(
    'damenmode|damenbekleidung|mode femme|vetements femme|ropa de mujer|moda mujer|abbigliamento donna|moda donna|dameskleding|damesmode|roupa feminina|moda feminina|damklader|dametoj|dameklaer|odziez damska|sukienki|kleider|vestido|vestidos|vestiti',
    C.womens,
  ),
  e(
    'herrenmode|herrenbekleidung|mode homme|vetements homme|ropa de hombre|moda hombre|abbigliamento uomo|moda uomo|herenkleding|herenmode|roupa masculina|moda masculina|herrklader|herretoj|herreklaer|odziez meska',
    C.mens,
  ),
  e(
    'kindermode|kinderkleidung|babykleidung|vetements enfant|mode enfant|ropa infantil|ropa de bebe|ropa de nino|abbigliamento bambini|abbigliamento neonato|kinderkleding|babykleding|roupa infantil|roupa de bebe|barnklader|babyklader|bornetoj|babytoj|barneklaer|odziez dziecieca|ubranka dzieciece',
    C.kidsClothing,
  ),
  e(
    'schuhe|schuh|sneaker laden|chaussure|chaussures|zapato|zapatos|zapatillas|calzado|scarpe|scarpa|calzature|schoenen|schoen|sapato|sapatos|calcado|skor|sko|buty|obuwie',
    C.footwear,
  ),
  e(
    'schmuck|uhren|uhr|taschen|handtaschen|bijoux|bijouterie|joaillerie|montres|sacs|sac a main|maroquinerie|joyeria|joyas|relojes|bolsos|gioielli|gioielleria|orologi|borse|bigiotteria|sieraden|juwelier|horloges|tassen|joias|joalheria|relogios|bolsas|bijuteria|smycken|klockor|vaskor|smykker|ure|tasker|vesker|bizuteria|zegarki|torebki|accessoires|accesorios|accessori|acessorios|akcesoria',
    C.accessories,
  ),
  e(
    'brillen|sonnenbrillen|lunettes|lunettes de soleil|gafas|gafas de sol|occhiali|occhiali da sole|zonnebrillen|oculos|oculos de sol|glasogon|solglasogon|briller|solbriller|okulary|okulary przeciwsloneczne',
    C.eyewear,
    C.vision,
  ),
  e(
    'dessous|unterwasche|lingerie fine|sous vetements|ropa interior|lenceria|intimo|biancheria intima|ondergoed|roupa intima|underklader|undertoj|bielizna|socken|chaussettes|calcetines|calzini|sokken|meias|strumpor|strompor|skarpety',
    C.undergarments,
  ),
  e(
    'bademode|maillot de bain|maillots de bain|banador|banadores|traje de bano|costume da bagno|costumi da bagno|badmode|moda praia|biquini|badklader|badetoj|stroje kapielowe',
    C.swimwear,
  ),
  e(
    'sportbekleidung|vetements de sport|ropa deportiva|abbigliamento sportivo|sportkleding|roupa esportiva|roupa desportiva|traningsklader|sportstoj|odziez sportowa',
    C.athletic,
  ),
  e('hute|chapeaux|sombreros|cappelli|hoeden|chapeus|hattar|hatte|czapki', C.headwear),
  e(
    'kostume|deguisement|deguisements|disfraces|disfraz|costumi di carnevale|verkleedkleding|fantasias|maskeraddrakter|udklaedning|przebrania',
    C.costumes,
  ),
  e(
    'brautmode|brautkleider|robes de mariee|vestidos de novia|abiti da sposa|bruidsmode|vestidos de noiva|brudklanningar|suknie slubne',
    C.formal,
  ),
  e(
    'kosmetik|schminke|make up|cosmetique|cosmetiques|maquillage|cosmeticos|maquillaje|cosmetici|trucco|cosmetica|maquiagem|smink|sminke|kosmetyki|makijaz',
    C.makeup,
  ),
  e(
    'hautpflege|gesichtspflege|naturkosmetik|soin de la peau|soins visage|soins de la peau|cuidado de la piel|cuidado facial|cura della pelle|cura del viso|huidverzorging|gezichtsverzorging|cuidados com a pele|skincare natural|hudvard|hudpleje|hudpleie|pielegnacja skory|pielegnacja twarzy|nagellack|vernis a ongles|esmalte de unas|smalto|nagellak|esmalte|nagellack|lakier do paznokci',
    C.skin,
  ),
  e(
    'parfum|parfums|parfumerie|duft|dufte|perfumes|perfumeria|profumo|profumi|profumeria|geur|perfumaria|parfym|parfyme|perfumy',
    C.perfume,
  ),
  e(
    'haarpflege|perucken|soins capillaires|perruques|cuidado del cabello|pelucas|cura dei capelli|parrucche|haarverzorging|pruiken|cuidados capilares|perucas|harvard|harpleje|harpleie|pielegnacja wlosow|peruki',
    C.hair,
  ),
  e(
    'seife|seifen|korperpflege|savon|savons|soins du corps|jabon|jabones|higiene|sapone|saponi|zeep|verzorging|sabonete|sabonetes|tval|saebe|mydlo|mydla|kosmetyki naturalne',
    C.hygiene,
  ),
  e('schonheit|beaute|belleza|bellezza|schoonheid|beleza|skonhet|skonhed|uroda', C.beauty),
  e(
    'sportartikel|sportgerate|articles de sport|equipement sportif|deportes|articulos deportivos|articoli sportivi|sportartikelen|artigos esportivos|artigos desportivos|esportes|desporto|sportartiklar|sportsudstyr|sportsutstyr|artykuly sportowe',
    C.sportingGoods,
  ),
  e(
    'fitnessgerate|krafttraining|musculation|gimnasio|equipamiento fitness|palestra|attrezzi fitness|sportschool|academia|traning|traeningsudstyr|trening|silownia',
    C.fitness,
  ),
  e(
    'nahrungserganzung|nahrungserganzungsmittel|vitamine|complements alimentaires|vitamines|suplementos|vitaminas|integratori|integratori alimentari|supplementen|vitaminen|suplementos alimentares|kosttillskott|vitaminer|kosttilskud|kosttilskudd|suplementy|witaminy',
    C.supplements,
  ),
  e('apotheke|pharmacie|parapharmacie|farmacia|farmacie|apotheek|drogisterij|apotek|apotek|apteka', C.pharmacy),
  e(
    'wohnaccessoires|wohndeko|deko|dekoration|einrichtung|decoration|deco|decoration maison|decoracion|decoracion hogar|decorazione|decorazioni|complementi d arredo|woondecoratie|woonaccessoires|decoracao|inredning|heminredning|boligindretning|interior|dekoracje|wystroj wnetrz|kerzen|bougie|bougies|vela|velas|candele|kaarsen|ljus|stearinlys|swiece',
    C.decor,
  ),
  e(
    'mobel|mobilier|meuble|meubles|mueble|muebles|mobili|arredamento|meubels|movel|moveis|mobler|moebler|meble|lampen|leuchten|beleuchtung|luminaire|luminaires|eclairage|lamparas|iluminacion|lampade|illuminazione|verlichting|iluminacao|luminarias|belysning|lamper|oswietlenie|teppiche|tapis|alfombras|tappeti|vloerkleden|tapetes|mattor|taepper|dywany',
    C.furnishings,
  ),
  e(
    'kuche|kuchenzubehor|kochgeschirr|cuisine|ustensiles de cuisine|art de la table|cocina|menaje|utensilios de cocina|cucina|casalinghi|pentole|keuken|keukengerei|cozinha|utensilios de cozinha|kok|koksredskap|kokken|kjokken|kjokkenutstyr|kuchnia|naczynia',
    C.kitchen,
  ),
  e(
    'bettwasche|handtucher|linge de maison|linge de lit|ropa de cama|ropa de hogar|toallas|biancheria per la casa|biancheria da letto|asciugamani|beddengoed|handdoeken|roupa de cama|toalhas|sanglinne|handdukar|sengetoj|handklaeder|sengetoy|poscie|reczniki',
    C.bedBath,
  ),
  e(
    'garten|gartenbedarf|pflanzen|jardin|jardinage|plantes|jardineria|plantas|semillas|giardino|giardinaggio|piante|semi|tuin|tuincentrum|planten|jardim|jardinagem|tradgard|vaxter|fron|haveartikler|planter|hage|hagesenter|ogrod|ogrodnictwo|rosliny',
    C.garden,
  ),
  e(
    'werkzeug|baumarkt|heimwerker|bricolage|outils|quincaillerie|herramientas|ferreteria|bricolaje|attrezzi|utensili|ferramenta|fai da te|gereedschap|bouwmarkt|klussen|ferramentas|bricolagem|verktyg|jarnhandel|vaerktoj|byggemarked|verktoy|narzedzia|majsterkowanie',
    C.improvement,
  ),
  e(
    'reinigung|putzmittel|reinigungsmittel|nettoyage|produits d entretien|produits menagers|limpieza|productos de limpieza|pulizia|detersivi|prodotti per la pulizia|schoonmaak|schoonmaakmiddelen|limpeza|produtos de limpeza|stad|stadprodukter|rengoring|rengoringsmidler|sprzatanie|srodki czystosci',
    C.cleaning,
  ),
  e(
    'haushaltsgerate|electromenager|electrodomesticos|elettrodomestici|huishoudelijke apparaten|eletrodomesticos|hushallsapparater|hvidevarer|husholdningsapparater|agd',
    C.appliances,
  ),
  e(
    'babyartikel|babyausstattung|kinderwagen|puericulture|articles pour bebe|poussette|puericultura|articulos para bebe|cochecito|prima infanzia|articoli per neonati|passeggino|babyartikelen|kinderwagen|artigos para bebe|carrinho de bebe|babyprodukter|barnvagn|babyudstyr|barnevogn|artykuly dla niemowlat|wozek',
    C.nursery,
  ),
  e(
    'lebensmittel|feinkost|epicerie|epicerie fine|alimentation|produits du terroir|alimentos|comida|alimentari|cibo|gastronomia|prodotti tipici|voeding|levensmiddelen|alimentacao|mercearia|livsmedel|delikatesser|dagligvarer|madvarer|matvarer|zywnosc|jedzenie|schokolade|suessigkeiten|susswaren|chocolat|confiserie|chocolate|dulces|golosinas|cioccolato|dolci|caramelle|chocolade|snoep|doces|chocolates|choklad|godis|chokolade|slik|sjokolade|godteri|czekolada|slodycze|gewurze|epices|especias|spezie|kruiden|especiarias|kryddor|krydderier|przyprawy|honig|miel|miele|honing|mel|honung|honning|miod|kase|fromage|queso|formaggio|kaas|queijo|ost|ser',
    C.foodItems,
  ),
  e(
    'kaffee|kaffeerosterei|tee|torrefaction|caffe|caffetteria|torrefazione|koffie|koffiebranderij|thee|cha|kaffe|kaffebrenneri|kawa|herbata|wein|weinhandlung|vin|vins|caviste|vino|vinos|vinoteca|vini|enoteca|wijn|wijnhandel|vinho|vinhos|garrafeira|vinbutik|vinhandel|wino|bier|brauerei|biere|brasserie|cerveza|cerveceria|birra|birrificio|cerveja|cervejaria|ol|bryggeri|piwo|browar|spirituosen|spiritueux|licores|liquori|sterke drank|bebidas|getranke|boissons|bevande|dranken|drycker|drikkevarer|napoje',
    C.beverages,
  ),
  e(
    'haustier|haustiere|tierbedarf|zoohandlung|heimtierbedarf|animaux|animalerie|accessoires pour animaux|mascota|mascotas|tienda de mascotas|animali|animali domestici|articoli per animali|huisdier|huisdieren|dierenwinkel|dierenspeciaalzaak|animais de estimacao|husdjur|djurbutik|djurtillbehor|kaeledyr|dyrehandel|kjaeledyr|dyrebutikk|zwierzeta|sklep zoologiczny',
    C.petSupplies,
  ),
  e(
    'hund|hunde|hundezubehor|hundefutter|chien|chiens|perro|perros|cane e gatto|hond|honden|hondenvoer|cao|caes|cachorro|cachorros|hundar|pies|psy',
    C.dogs,
    C.petSupplies,
  ),
  e('katze|katzen|katzenfutter|chat|chats|gato|gatos|gatto|gatti|kat|katten|kattenvoer|katt|katter|kot|koty', C.cats, C.petSupplies),
  e(
    'pferd|pferde|reitsport|cheval|equitation|caballo|hipica|cavallo|equitazione|paard|paardensport|cavalo|hipismo|hast|ridsport|hest|rideudstyr|kon|jezdziectwo',
    C.horses,
  ),
  e('aquaristik|aquariophilie|acuario|acquario|acquariofilia|aquarium|aquario|akvarium|akwarium', C.fish),
  e(
    'spielzeug|spielwaren|jouet|jouets|juguete|juguetes|jugueteria|giocattolo|giocattoli|speelgoed|speelgoedwinkel|brinquedo|brinquedos|leksak|leksaker|legetoj|leker|leketoy|zabawki|zabawka|kuscheltiere|peluches|peluche|knuffels|pelucia|gosedjur|bamser|maskotki',
    C.toys,
  ),
  e(
    'spiele|brettspiele|gesellschaftsspiele|jeux|jeux de societe|juegos|juegos de mesa|giochi|giochi da tavolo|spellen|bordspellen|jogos|jogos de tabuleiro|spel|sallskapsspel|spil|braetspil|spill|brettspill|gry|gry planszowe',
    C.boardGames,
    C.games,
  ),
  e('videospiele|jeux video|videojuegos|videogiochi|videogames|videojogos|tv spel|computerspil|dataspill|gry wideo', C.videoGames),
  e(
    'bucher|buch|buchhandlung|livre|livres|librairie|libro|libros|libreria|libri|boek|boeken|boekhandel|livro|livros|livraria|bok|bocker|bokhandel|boger|boghandel|boker|bokhandel|ksiazki|ksiegarnia',
    C.books,
  ),
  e(
    'elektronik|elektrogerate|electronique|high tech|electronica|elettronica|elektronica|eletronicos|eletronica|hemelektronik|elektronika|rtv',
    C.electronics,
  ),
  e(
    'handyhullen|handyzubehor|coque telephone|accessoires telephone|fundas movil|accesorios movil|cover cellulare|accessori smartphone|telefoonhoesjes|capas de telemovel|capinhas|mobilskal|mobilcovers|etui na telefon',
    C.mobile,
  ),
  e(
    'autoteile|autozubehor|ersatzteile|pieces auto|accessoires auto|pieces detachees|repuestos|recambios|accesorios coche|ricambi auto|accessori auto|auto onderdelen|auto accessoires|pecas auto|acessorios auto|bildelar|biltillbehor|reservedele|bildele|czesci samochodowe|akcesoria samochodowe',
    C.vehicleParts,
  ),
  e(
    'fahrrad|fahrrader|e bikes|velo|velos|cyclisme|bicicleta|bicicletas|ciclismo|bicicletta|biciclette|bici|fiets|fietsen|fietsenwinkel|bicicletas|cykel|cyklar|cykler|sykkel|sykler|rower|rowery',
    C.bicycles,
  ),
  e(
    'camping|wandern|outdoorausrustung|angeln|jagd|randonnee|peche|chasse|acampada|senderismo|pesca|caza|campeggio|escursionismo|caccia|kamperen|wandelen|vissen|jacht|campismo|caminhada|friluftsliv|vandring|fiske|jakt|lystfiskeri|jagt|turystyka|wedkarstwo|mysliwstwo',
    C.outdoors,
  ),
  e(
    'basteln|bastelbedarf|handarbeit|wolle|stoffe|nahen|loisirs creatifs|mercerie|laine|tissus|couture|tricot|manualidades|merceria|lana|telas|costura|punto|hobbistica|tessuti|cucito|uncinetto|knutselen|garen|wol|stoffen|naaien|haken|artesanato|armarinho|tecidos|pyssel|garn|tyg|syning|hobbyartikler|stof|strik|handarbeid|rekodzielo|wloczka|tkaniny|szycie',
    C.crafts,
  ),
  e(
    'musikinstrumente|instruments de musique|instrumentos musicales|strumenti musicali|muziekinstrumenten|instrumentos musicais|musikinstrument|instrumenty muzyczne|schallplatten|vinyles|discos|dischi',
    C.music,
  ),
  e(
    'kunst|kunstdrucke|poster|affiches|art mural|arte|laminas|cuadros|stampe|quadri|posters|kunstwerk|quadros|tavlor|plakater|plakaty|obrazy',
    C.visualArt,
  ),
  e(
    'geschenke|geschenkideen|cadeau|cadeaux|idees cadeaux|regalo|regalos|regali|idee regalo|cadeaus|cadeautjes|presente|presentes|prenda|presenter|gaver|gavebutik|prezenty|upominki',
    C.gifts,
  ),
  e(
    'blumen|blumenladen|fleurs|fleuriste|flores|floristeria|fiori|fioraio|bloemen|bloemist|floricultura|blommor|blomsterhandel|blomster|kwiaty|kwiaciarnia',
    C.flowers,
  ),
  e(
    'schreibwaren|papeterie|papeleria|cartoleria|kantoorartikelen|papelaria|pappershandel|kontorartikler|artykuly papiernicze',
    C.cards,
    C.businessServices,
  ),
  e(
    'koffer|reisegepack|bagages|valises|maletas|equipaje|valigie|bagagli|koffers|bagage|malas|bagagem|resvaskor|kufferter|kofferter|walizki|bagaz',
    C.luggage,
  ),
  e(
    'tabak|e zigaretten|tabac|cigarette electronique|tabaco|cigarrillos electronicos|tabacco|sigarette elettroniche|e sigaretten|cigarros eletronicos|tobak|e cigaretter|tyton|e papierosy',
    C.tobacco,
  ),
  e(
    'antiquitaten|sammlerstucke|antiquites|brocante|antiguedades|coleccionables|antiquariato|collezionismo|antiek|verzamelobjecten|antiguidades|colecionaveis|antikviteter|samlarobjekt|antyki|kolekcje',
    C.antiques,
  ),
  e('luxus|luxe|lujo|lusso|luxe merken|luxo|lyx|luksus|luksusowe', C.luxury),
  e('skisport|wintersport|ski de fond|esqui|sci|wintersportartikelen|skidor|ski|narty', C.winterSports),
  e('fussball|fussballschuhe|football europeen|futbol|calcio|voetbal|futebol|fotboll|fodbold|fotball|pilka nozna', C.teamSports),
  e(
    'golfausrustung|materiel de golf|tennisschlager|raquettes|raquetas|racchette|hardlopen|laufen|course a pied|corsa|correr|lopning|bieganie',
    C.individualSports,
  ),
];
