import { matchCategoryPath, STORELEADS_CATEGORY_PATHS } from './category-paths';

describe('Store Leads category paths', () => {
  it.each([
    ['apparel', '/Apparel'],
    ['Running shoes', '/Apparel/Footwear'],
    ["women's clothing", "/Apparel/Women's Clothing"],
    ['jewellery', '/Apparel/Jewelry'],
    ['Cosmetics', '/Beauty & Fitness/Make-Up & Cosmetics'],
    ['coffee roasters', '/Food & Drink/Coffee & Tea'],
    ['pet supplies', '/Pets & Animals/Pet Food & Supplies'],
    ['/Apparel/Footwear/', '/Apparel/Footwear'],
    ['plumber', null],
  ])('when the category is "%s", then the path is %s', (category, path) => {
    expect(matchCategoryPath(category)).toBe(path);
  });

  it('when the taxonomy is shipped, then every entry is a path under a listed top level', () => {
    const tops = new Set(STORELEADS_CATEGORY_PATHS.filter((p) => p.split('/').length === 2));
    for (const path of STORELEADS_CATEGORY_PATHS) {
      expect(path).toMatch(/^(\/[^/]+)+$/);
      expect(tops.has(`/${path.split('/')[1]}`)).toBe(true);
    }
  });
});
