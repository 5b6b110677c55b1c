fn main() -> std::process::ExitCode {
    mcp_conform::cli::main()
}
