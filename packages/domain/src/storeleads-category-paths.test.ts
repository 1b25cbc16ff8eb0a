import { matchCategoryPath, STORELEADS_CATEGORY_PATHS, STORELEADS_TAXONOMY_RETRIEVED } from './storeleads-category-paths';

describe('Store Leads category paths', () => {
  it.each([
    ['apparel', '/Apparel'],
    ['Running shoes', '/Apparel'],
    ["women's clothing", '/Apparel'],
    ['Cosmetics', '/Beauty & Fitness/Face & Body Care/Make-Up & Cosmetics'],
    ['makeup', '/Beauty & Fitness/Face & Body Care/Make-Up & Cosmetics'],
    ['skincare', '/Beauty & Fitness/Face & Body Care/Skin & Nail Care'],
    ['Perfumes', '/Beauty & Fitness/Face & Body Care/Perfumes & Fragrances'],
    ['beauty', '/Beauty & Fitness'],
    ['fitness gear', '/Beauty & Fitness/Fitness'],
    ['vitamins and supplements', '/Health/Nutrition'],
    ['/Health/Nutrition/', '/Health/Nutrition'],
    ['coffee roasters', null],
    ['plumber', null],
  ])('when the category is "%s", then the path is %s', (category, path) => {
    expect(matchCategoryPath(category)).toBe(path);
  });

  it('when the taxonomy is shipped, then it says where it comes from and when, and holds the published beauty paths', () => {
    expect(STORELEADS_TAXONOMY_RETRIEVED).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(STORELEADS_CATEGORY_PATHS).toEqual(
      expect.arrayContaining(['/Beauty & Fitness/Face & Body Care/Make-Up & Cosmetics', '/Health/Nutrition']),
    );
    // the paths once written from memory, which Store Leads does not have
    expect(STORELEADS_CATEGORY_PATHS).not.toContain('/Beauty & Fitness/Make-Up & Cosmetics');
  });

  it('when the taxonomy is shipped, then every entry is a path under a listed top level', () => {
    const tops = new Set(STORELEADS_CATEGORY_PATHS.filter((p) => p.split('/').length === 2));
    for (const path of STORELEADS_CATEGORY_PATHS) {
      expect(path).toMatch(/^(\/[^/]+)+$/);
      expect(tops.has(`/${path.split('/')[1]}`)).toBe(true);
    }
  });
});
