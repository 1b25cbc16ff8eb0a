import { matchCategoryPaths } from './storeleads-category-match';
import {
  categoryFilter,
  categoryLabel,
  categoryName,
  categorySpellingDoubt,
  categorySpellings,
  findCategoryPath,
  isConfirmedCategory,
  STORELEADS_CATEGORY_PATHS,
  STORELEADS_TAXONOMY_RETRIEVED,
  STORELEADS_TAXONOMY_SOURCES,
} from './storeleads-category-paths';

const depth = (path: string) => path.split('/').length - 1;
const tops = STORELEADS_CATEGORY_PATHS.filter((p) => depth(p) === 1);
const seconds = STORELEADS_CATEGORY_PATHS.filter((p) => depth(p) === 2);

describe('Store Leads category taxonomy', () => {
  it('when the taxonomy is shipped, then it says where it comes from and when', () => {
    expect(STORELEADS_TAXONOMY_RETRIEVED).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Object.keys(STORELEADS_TAXONOMY_SOURCES)).toEqual(
      expect.arrayContaining(['google-content-categories', 'storeleads-category-pages', 'working-queries']),
    );
  });

  it("when the taxonomy is shipped, then it holds Google's branches with Shopping's children raised to the top", () => {
    expect(tops.length).toBeGreaterThanOrEqual(35);
    expect(seconds.length).toBeGreaterThanOrEqual(187);
    expect(tops).toEqual(expect.arrayContaining(['/Apparel', '/Toys & Hobbies', '/Home & Garden', '/Pets & Animals', '/Food & Drink']));
    expect(STORELEADS_CATEGORY_PATHS).toEqual(
      expect.arrayContaining([
        '/Apparel/Footwear',
        '/Home & Garden/Kitchen & Dining',
        '/Home & Garden/Home & Interior Decor',
        '/Food & Drink/Beverages',
        '/Pets & Animals/Pet Food & Supplies',
        '/Beauty & Fitness/Face & Body Care/Make-Up & Cosmetics',
        '/Health/Nutrition/Vitamins & Supplements',
      ]),
    );
    expect(STORELEADS_CATEGORY_PATHS.some((p) => p.startsWith('/Shopping'))).toBe(false);
    // the beauty paths once written from memory, which Store Leads does not have
    expect(STORELEADS_CATEGORY_PATHS).not.toContain('/Beauty & Fitness/Make-Up & Cosmetics');
  });

  it('when the taxonomy is shipped, then every path is unique and sits under a listed parent', () => {
    expect(new Set(STORELEADS_CATEGORY_PATHS).size).toBe(STORELEADS_CATEGORY_PATHS.length);
    for (const path of STORELEADS_CATEGORY_PATHS) {
      expect(path).toMatch(/^(\/[^/]+)+$/);
      if (depth(path) > 1) expect(STORELEADS_CATEGORY_PATHS).toContain(path.slice(0, path.lastIndexOf('/')));
    }
  });

  it('when a Store Leads source shows a path, then it is marked confirmed; a path only derived from Google is not', () => {
    expect(isConfirmedCategory('/Home & Garden/Kitchen & Dining')).toBe(true);
    expect(isConfirmedCategory('/Pets & Animals/Dogs')).toBe(true);
    expect(isConfirmedCategory('/Sports/Winter Sports')).toBe(false);
  });

  it.each(STORELEADS_CATEGORY_PATHS)(
    'when the category is the path %s itself, in any of its written forms, then it is that path',
    (path) => {
      expect(matchCategoryPaths(path)).toEqual([path]);
      expect(matchCategoryPaths(`${path.slice(1).toLowerCase()}/`)).toEqual([path]);
      expect(matchCategoryPaths(categoryLabel(path))).toEqual([path]);
      // Its last name alone is it, or its branch where the name is generic ("Pets", "Online Games").
      const byName = matchCategoryPaths(categoryName(path));
      expect(byName.some((p) => p === path || path.startsWith(`${p}/`))).toBe(true);
    },
  );

  it('when a spelling is not confirmed, then both spellings are accepted and the doubt is said', () => {
    expect(findCategoryPath('/Toys/Stuffed Toys')).toBe('/Toys & Hobbies/Stuffed Toys');
    expect(findCategoryPath('/Apparel/Women’s Clothing')).toBe("/Apparel/Women's Clothing");
    expect(findCategoryPath('/Home & Garden/Pool & Spa')).toBe('/Home & Garden/Home Swimming Pools, Saunas & Spas');
    expect(categorySpellings('/Toys & Hobbies')).toEqual(['/Toys & Hobbies', '/Toys']);
    expect(categorySpellingDoubt('/Toys & Hobbies')).toMatch(/Toys & Hobbies/);
    expect(categorySpellingDoubt('/Home & Garden/Kitchen & Dining')).toBeNull();
  });

  describe('the f:cat value', () => {
    it('when one confirmed path is chosen, then it is sent alone, no operator', () => {
      expect(categoryFilter(['/Home & Garden/Kitchen & Dining'])).toEqual({ value: '/Home & Garden/Kitchen & Dining', anyOf: false });
    });

    it('when several paths are chosen, then they go comma-separated with any one enough', () => {
      expect(categoryFilter(['/Pets & Animals/Dogs', '/Pets & Animals/Pet Food & Supplies'])).toEqual({
        value: '/Pets & Animals/Dogs,/Pets & Animals/Pet Food & Supplies',
        anyOf: true,
      });
    });

    it('when a path has an unconfirmed spelling, then every comma-free spelling is sent, any one enough', () => {
      expect(categoryFilter(['/Toys & Hobbies'])).toEqual({ value: '/Toys & Hobbies,/Toys', anyOf: true });
      expect(categoryFilter(['/Home & Garden/Home Swimming Pools, Saunas & Spas'])).toEqual({
        value: '/Home & Garden/Pool & Spa',
        anyOf: false,
      });
    });

    it('when the only spelling holds a comma, then that path is sent alone, since a comma would split it', () => {
      expect(categoryFilter(['/Finance/Grants, Scholarships & Financial Aid', '/Finance'])).toEqual({
        value: '/Finance/Grants, Scholarships & Financial Aid',
        anyOf: false,
      });
    });
  });
});
