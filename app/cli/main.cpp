// SPDX-License-Identifier: Apache-2.0
// pimscope-cli: the headless face of the engine. Every command prints a readable table, or JSON with --json.
// Bad input of any kind prints one line "pimscope-cli: error: ..." and exits with code 2.
#include <iostream>

#include "app/cli/cli_common.h"
#include "engine/common/error.h"
#include "engine/common/memory_policy.h"

int main(int argc, char** argv) {
  pim::keepFreedMemory();
  CLI::App app{"PIMScope: data-centric schedule exploration for processing-in-memory backends"};
  app.name("pimscope-cli");
  app.require_subcommand(1);
  pim::cli::registerCatalogCommands(app);
  pim::cli::registerDraftCommands(app);
  pim::cli::registerSimulateCommands(app);
  pim::cli::registerExploreCommands(app);
  pim::cli::registerTrainCommands(app);
  pim::cli::registerWorkflowCommands(app);
  pim::cli::registerDccCommands(app);
  pim::cli::registerMapCommands(app);
  pim::cli::registerMappingStoreCommands(app);
  pim::cli::registerCompileCommands(app);
  pim::cli::registerLlmCommands(app);
  pim::cli::registerSweepCommands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "pimscope-cli: error: " << e.what() << "\n";
    return 2;
  } catch (const pim::InputError& e) {
    std::cerr << "pimscope-cli: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pimscope-cli: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
