//! The paper's results tables as this world declares them, checked against the
//! paper's text: every number where the paper prints it.

use escapade_core::World;
use escapade_tools::ToolsWorld;

#[test]
fn every_number_of_the_papers_tables_is_in_the_paper() {
    let world = ToolsWorld::new().expect("the tools world");
    let paper = world.paper().expect("a paper");
    escapade_testkit::paper::check_against_text(&paper);
}
