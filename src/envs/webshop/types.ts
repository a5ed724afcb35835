/** Data shapes of the `webshop` env: products, catalogs, shopping goals and the task spec. */

/** A product option group as the item page shows it: `size [s][m][l]`. */
export interface OptionGroup {
  /** Lower-case group name: `size`, `color`, `pack`, `flavor`, … */
  name: string;
  /** Lower-case values, in display order. */
  values: string[];
}

/** A product of the generated catalog. */
export interface Product {
  /** Ten characters, `B0` + 8 upper-case letters or digits, unique in the catalog. */
  asin: string;
  /** Category key, e.g. `beauty`. */
  category: string;
  /** Breadcrumb from the top category down, e.g. `['Beauty & Personal Care', 'Skin Care', 'Deodorants']`. */
  categoryPath: string[];
  /** The kind of product in a few words, e.g. `deodorant`, `running shoes`; plays WebShop's `query`. */
  productType: string;
  brand: string;
  title: string;
  /** Dollars, two decimals. */
  price: number;
  /** 2–8 lower-case attribute phrases from the category vocabulary, e.g. `sensitive skin`. */
  attributes: string[];
  /** 0–3 option groups. */
  options: OptionGroup[];
  description: string;
  features: string[];
}

/** What the shopper wants. Built from a target product of the catalog. */
export interface Goal {
  /** The target product the goal was built from (one of possibly several that satisfy it). */
  asin: string;
  category: string;
  categoryPath: string[];
  productType: string;
  /** The target's title: WebShop's goal `name`, used for the type reward's shared nouns. */
  name: string;
  /** Wanted attributes (a subset of the target's). */
  attributes: string[];
  /** Wanted option value per option group name (a subset of the target's groups). */
  options: Record<string, string>;
  /** Budget in dollars: buying at or under it earns the price point. */
  priceUpper: number;
  /** The natural-language instruction shown to the agent. */
  instruction: string;
}

/** Identifies a generated catalog: the same seed and size always give the same products. */
export interface CatalogId {
  seed: number;
  size: number;
}

/** `Task.spec` for webshop tasks: the catalog the goal was drawn from and the goal itself. */
export interface WebShopTaskSpec {
  catalog: CatalogId;
  goal: Goal;
}
